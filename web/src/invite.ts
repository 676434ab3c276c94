// Invite links: `…#/join/CODE?pw=PASSWORD`, made by the room screen and
// opened by a friend (a new player first signs in, told it is an invitation).
import type { Room } from "./gen/tabuleiro/lobby/v1/lobby_pb";
import { gameName, playerName, timeControlText, variantName } from "./notation";
import { t } from "./i18n";

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

/**
 * inviteLine is what an invitation offers, as lobby.v1 GetInvite returns
 * its room: "Alice invites you to Quoridor (standard), 5+3".
 */
export function inviteLine(r: Room): string {
  const host = playerName(r.members.find((m) => m.host));
  const clock = r.timeControl ? timeControlText(r.timeControl) : t("clock.noneLower");
  const p = { host: host ?? "", game: gameName(r.game), variant: variantName(r.game, r.variant), clock };
  if (r.rated) return host ? t("invite.line.rated", p) : t("invite.line.ratedNoHost", p);
  return host ? t("invite.line.host", p) : t("invite.line", p);
}
