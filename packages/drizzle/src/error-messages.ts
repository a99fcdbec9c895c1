// The messages of the configuration errors hilo-drizzle throws, one factory per mistake: written once, named after
// what went wrong. Internal (not exported from the package); ESLint forbids `new HiLoConfigurationError(` elsewhere.
import { HiLoConfigurationError } from 'hilo-core';

/** Factories for the configuration errors the Drizzle adapter throws: one per mistake, named after it. */
export const configurationErrors = {
  /** One segment's keys asked for with two different `as` conversions. */
  segmentAsConflict: (segment: string, known: string, as: string): HiLoConfigurationError =>
    new HiLoConfigurationError(`Segment "${segment}" is already used with as = "${known}", not "${as}"`),
};
