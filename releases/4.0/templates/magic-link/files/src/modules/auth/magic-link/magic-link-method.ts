/** Every account can ask for a sign-in link to its address, so it always has this way in. */
export async function canSignInByLink(): Promise<boolean> {
  return true;
}
