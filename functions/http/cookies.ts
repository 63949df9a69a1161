/** The value of cookie `name` in API Gateway v2's list of `name=value` strings. */
export const readCookie = (cookies: readonly string[] | undefined, name: string): string | undefined => {
  for (const cookie of cookies ?? []) {
    const separator = cookie.indexOf('=');
    if (separator > 0 && cookie.slice(0, separator).trim() === name)
      return cookie.slice(separator + 1).trim();
  }
  return undefined;
};
