/**
 * The one source of time. Rules take `now` as an argument; handlers ask `clock().now()`.
 * In the cloud it is the system clock; the local control plane installs a clock that can be
 * advanced, and the processor emulator follows the same one.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

let installed: Clock = systemClock;

export const clock = (): Clock => installed;

/** Used by the local control plane and by tests; never by cloud code. */
export const installClock = (replacement: Clock): void => {
  installed = replacement;
};
