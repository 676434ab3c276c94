// Loading a finished game's record (GetGame) for the replay page.
import { ConnectError, Code } from "./api";

/**
 * NO_RECORD is what the replay page says when the server has no record of
 * a game: it answers NOT_FOUND alike for a game still live (a private one
 * too, so that its existence is not revealed) and one that never was.
 */
export const NO_RECORD = "record.none"; // a catalog key

/** endedHere are the games this page saw finish: their record may lag a moment behind. */
const endedHere = new Set<string>();

/** sawEnd notes that the game id finished before this page's eyes. */
export function sawEnd(id: string): void {
  endedHere.add(id);
}

const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * loadRecord fetches game id's record with get, or returns undefined when
 * the server has none (NOT_FOUND). NOT_FOUND is retried (10 times, 0.7 s
 * apart) only for a game this page saw end, which may not be recorded yet;
 * any other game answers at once. Other errors are thrown.
 */
export async function loadRecord<T>(id: string, get: () => Promise<T>, sleep: (ms: number) => Promise<void> = sleepMs): Promise<T | undefined> {
  for (let i = 0; ; i++) {
    try {
      return await get();
    } catch (err) {
      if (!(err instanceof ConnectError && err.code === Code.NotFound)) throw err;
      if (!endedHere.has(id) || i >= 10) return undefined;
      await sleep(700);
    }
  }
}
