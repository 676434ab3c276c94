// What the Corners view tells a player beside the board, as the terminal
// does: the move number with the last move and the leave-home deadline,
// and which plies lose at once under C5.2. Pure, for the unit tests.
import { Seat } from "./gen/tabuleiro/game/v1/game_pb";
import type { CornersBoard, GameView } from "./gen/tabuleiro/game/v1/view_pb";
import { t } from "./i18n";

/**
 * returnHomeLoses reports whether seat's ply ending on `to` loses the game
 * at once (C5.2): after the leave-home deadline's move, a ply that ends in
 * the mover's own home. A chain that only passes through the home is legal;
 * only its last square counts.
 */
export function returnHomeLoses(v: GameView, seat: Seat, to: string): boolean {
  if (v.board.case !== "corners") return false;
  const b = v.board.value;
  if (b.deadlineMove <= 0 || b.moveNumber <= b.deadlineMove) return false;
  const side = seat === Seat.FIRST ? b.first : seat === Seat.SECOND ? b.second : undefined;
  return !!side?.home.includes(to);
}

/** cornersMoveLine is "Move 23 of 80 · leave home by move 40" (no deadline in training). */
export function cornersMoveLine(b: CornersBoard): string {
  let s = b.moveLimit > 0 ? t("corners.moveOf", { n: b.moveNumber, limit: b.moveLimit }) : t("corners.move", { n: b.moveNumber });
  if (b.deadlineMove > 0) s += ` · ${t("corners.leaveBy", { n: b.deadlineMove })}`;
  return s;
}
