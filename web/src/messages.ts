// The server's refusals as a player reads them: what happened and what to
// do. Most refusals are written for people already (a rule broken, with
// its number); a few are the protocol's own words ("ply 3 refused: the
// next ply is number 5") and are put in the player's terms here.
import { Code } from "@connectrpc/connect";

/** BUSY is the lobby's refusal of a second game while one is in progress (lobby.BusyError). */
const BUSY = /\bis already in match (\S+?);/;

/** busyMatch is the game in progress named by a "player … is already in match …" refusal, if it is one. */
export function busyMatch(code: Code, raw: string): string | undefined {
  if (code !== Code.FailedPrecondition) return undefined;
  return BUSY.exec(raw)?.[1];
}

/** ALREADY_PLAYING is what a player is told when they try to start a second game. */
export const ALREADY_PLAYING = "You already have a game in progress. Go back to it, or resign it, before starting another.";

/**
 * serverText is a refusal's message for the page: the server's own words
 * when they are a player's, else what happened and what to do.
 */
export function serverText(code: Code, raw: string): string {
  if (busyMatch(code, raw) !== undefined) return ALREADY_PLAYING;
  if (/\bply \d+ refused: the game is over\b/.test(raw) || code === Code.FailedPrecondition && /\bgame is over\b/.test(raw)) {
    return "The game is already over: that move was not played.";
  }
  if (/\bply \d+ refused: the next ply is number \d+/.test(raw)) {
    return "That move was not played: the game had moved on (a move was made elsewhere, perhaps in another tab). Look at the board as it is now and play again.";
  }
  if (/\bthat ply belongs to the other seat\b/.test(raw)) return "It is not your turn: wait for your opponent's move.";
  if (/\bthe seat joined again on another stream\b/.test(raw)) {
    return "This game is open in another tab or window. Press “Play here” to play it in this one.";
  }
  if (/\bhold no seat in this match\b|\bcaller holds no seat\b/.test(raw)) return "You are not a player in this game: you can watch it.";
  if (/^match changed(;| concurrently)/.test(raw) || /not confirmed by a replica in time/.test(raw)) {
    return "The server could not take that in time. Please try again.";
  }
  return raw;
}
