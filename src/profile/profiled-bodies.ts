// What every reader of a profile checks first: that it was recorded for this
// exact module, and that each function it names is a defined function of it.

import { bodyOf } from "../binary/reader.js";
import type { Body } from "../ir/body.js";
import type { Module } from "../ir/module.js";
import { ProfileError } from "./errors.js";
import { fingerprint } from "./fingerprint.js";
import type { Profile, ProfileFunction } from "./profile.js";

/**
 * Each function of `profile` with its body in `m`, the module read from
 * `input`. Throws ProfileError if the profile was recorded for another
 * module or names a function `m` does not define.
 */
export function profiledBodies(profile: Profile, input: Uint8Array, m: Module): { pf: ProfileFunction; body: Body }[] {
  const fp = fingerprint(input);
  if (profile.fingerprint !== fp) {
    throw new ProfileError(
      `the profile was recorded for a different module (profile ${profile.fingerprint}, input ${fp}); ` +
        "instrument this exact input and profile again",
    );
  }
  const nImp = m.numImportedFuncs;
  return profile.functions.map((pf) => {
    const f = m.functions[pf.origin - nImp];
    if (pf.origin < nImp || !f) throw new ProfileError(`the profile does not fit the module: function ${pf.origin} is not a defined function`);
    return { pf, body: bodyOf(m, f) };
  });
}
