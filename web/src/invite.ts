// Invite links: `…#/join/CODE?pw=PASSWORD`, made by the room screen and
// opened by a friend (a new player first signs in, told it is an invitation).

/** inviteCode is the room code of an invite route ("#/join/K7MX2QPD?pw=x"), "" for any other route. */
export function inviteCode(hash: string): string {
  const m = /^#\/join\/([^?#/]+)/.exec(hash);
  if (!m) return "";
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}

/**
 * joinRoute is the route the lobby's join box opens: a whole invite link
 * pasted there opens that link's route (its password included); a bare
 * code opens #/join/CODE with the password typed beside it. "" when the
 * box is empty.
 */
export function joinRoute(text: string, password: string): string {
  const link = /#\/join\/[^\s#]+/.exec(text);
  if (link) return link[0];
  const code = text.trim();
  if (!code) return "";
  return `#/join/${encodeURIComponent(code)}${password ? `?pw=${encodeURIComponent(password)}` : ""}`;
}
