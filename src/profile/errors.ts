// Errors of profile-guided mode. A profile that does not fit the module, or a
// file that is not a profile, is the caller's mistake: a UsageError, so the
// CLI reports it in one line with exit code 2.

import { UsageError } from "../errors.js";

export class ProfileError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = "ProfileError";
  }
}
