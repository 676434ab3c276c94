// Positions of a finished game, ply by ply, rebuilt from its record
// (lobby.v1 GameRecord) for the replay screen: the start position of the
// game and variant, then each ply applied as its notation says. The
// record's Banqi layout (published once the game is over, B6) names the
// pieces that reveals turn up.
import { clone, create } from "@bufbuild/protobuf";
import {
  BanqiColor,
  BanqiPiece,
  Game,
  OutcomeSchema,
  Result,
  Seat,
  type Ply,
} from "./gen/tabuleiro/game/v1/game_pb";
import {
  BanqiBoardSchema,
  BanqiCellSchema,
  CornersBoardSchema,
  CornersSideSchema,
  GameViewSchema,
  QuoridorBoardSchema,
  QuoridorSideSchema,
  QuoridorWallSchema,
  WallOrientation,
  type GameView,
} from "./gen/tabuleiro/game/v1/view_pb";
import { squareName } from "./geometry";
import { banqiFromLetter, banqiInfo, otherSeat, plyShape } from "./notation";

/** cornersHomes are white's home squares per variant (C2); black's are mirrored through the centre. */
export function cornersHome(variant: string): { size: number; home: string[] } {
  const rect = (files: number, ranks: number) => {
    const out: string[] = [];
    for (let r = 0; r < ranks; r++) for (let f = 0; f < files; f++) out.push(squareName(f, r));
    return out;
  };
  switch (variant) {
    case "classic-3x4":
    case "diagonal-3x4":
      return { size: 8, home: rect(4, 3) };
    case "triangle":
      return { size: 8, home: ["a1", "b1", "c1", "d1", "a2", "b2", "c2", "a3", "b3", "a4"] };
    case "square-4x4":
      return { size: 8, home: rect(4, 4) };
    case "halma-16x16":
      return {
        size: 16,
        home: ["a1", "b1", "c1", "d1", "e1", "a2", "b2", "c2", "d2", "e2", "a3", "b3", "c3", "d3", "a4", "b4", "c4", "a5", "b5"],
      };
    default: // classic-3x3, diagonal-3x3, training
      return { size: 8, home: rect(3, 3) };
  }
}

export function mirrorSquare(sq: string, size: number): string {
  const file = sq.charCodeAt(0) - 97;
  const rank = Number(sq.slice(1)) - 1;
  return squareName(size - 1 - file, size - 1 - rank);
}

/** startView is a game's start position. */
export function startView(game: Game, variant: string): GameView {
  switch (game) {
    case Game.QUORIDOR:
      return create(GameViewSchema, {
        game, variant, toMove: Seat.FIRST,
        board: {
          case: "quoridor",
          value: create(QuoridorBoardSchema, {
            first: create(QuoridorSideSchema, { pawn: "e1", wallsLeft: 10, goalRank: 9 }),
            second: create(QuoridorSideSchema, { pawn: "e9", wallsLeft: 10, goalRank: 1 }),
            plyLimit: variant === "limit200" ? 200 : 0,
          }),
        },
      });
    case Game.CORNERS: {
      const { size, home } = cornersHome(variant);
      const other = home.map((q) => mirrorSquare(q, size));
      const training = variant === "training";
      return create(GameViewSchema, {
        game, variant, toMove: Seat.FIRST,
        board: {
          case: "corners",
          value: create(CornersBoardSchema, {
            size,
            first: create(CornersSideSchema, { pieces: [...home], home, target: other }),
            second: create(CornersSideSchema, { pieces: training ? [] : [...other], home: other, target: home }),
            diagonal: variant.startsWith("diagonal") || variant === "halma-16x16",
            moveNumber: 1,
          }),
        },
      });
    }
    default:
      return create(GameViewSchema, {
        game: Game.BANQI, variant, toMove: Seat.FIRST,
        board: {
          case: "banqi",
          value: create(BanqiBoardSchema, {
            cells: Array.from({ length: 32 }, () => create(BanqiCellSchema, { state: { case: "faceDown", value: {} } })),
          }),
        },
      });
  }
}

/**
 * replayViews returns the position before the first ply and after each
 * ply: views[i] is the position after i plies. A ply that cannot be read
 * stops the list there.
 */
export function replayViews(game: Game, variant: string, plies: Ply[], layout: string): GameView[] {
  const views: GameView[] = [startView(game, variant)];
  const training = game === Game.CORNERS && variant === "training";
  for (const p of plies) {
    const prev = views[views.length - 1];
    const v = clone(GameViewSchema, prev);
    if (!applyPly(v, p, layout)) break;
    v.plyCount = p.number;
    v.lastPly = p;
    v.toMove = training ? Seat.FIRST : otherSeat(p.seat);
    v.outcome = create(OutcomeSchema, { result: Result.ONGOING });
    views.push(v);
  }
  return views;
}

function applyPly(v: GameView, p: Ply, layout: string): boolean {
  const shape = plyShape(v.game, p.notation);
  if (!shape) return false;
  const b = v.board;
  if (b.case === "quoridor") {
    const side = p.seat === Seat.SECOND ? b.value.second! : b.value.first!;
    if (shape.kind === "wall") {
      b.value.walls.push(create(QuoridorWallSchema, {
        anchor: squareName(shape.wall.anchor.file, shape.wall.anchor.rank),
        orientation: shape.wall.orientation === "h" ? WallOrientation.HORIZONTAL : WallOrientation.VERTICAL,
        placedBy: p.seat,
        plyNumber: p.number,
      }));
      side.wallsLeft = Math.max(0, side.wallsLeft - 1);
      return true;
    }
    if (shape.kind === "pawn") {
      side.pawn = squareName(shape.to.file, shape.to.rank);
      return true;
    }
    return false;
  }
  if (b.case === "corners") {
    if (shape.kind !== "move") return false;
    const side = p.seat === Seat.SECOND ? b.value.second! : b.value.first!;
    const from = squareName(shape.path[0].file, shape.path[0].rank);
    const to = squareName(shape.path[shape.path.length - 1].file, shape.path[shape.path.length - 1].rank);
    const i = side.pieces.indexOf(from);
    if (i < 0) return false;
    side.pieces[i] = to;
    b.value.lastPath = shape.path.map((q) => squareName(q.file, q.rank));
    b.value.moveNumber = Math.floor(p.number / 2) + 1;
    return true;
  }
  if (b.case === "banqi") {
    const idx = (q: { file: number; rank: number }) => q.rank * 8 + q.file;
    if (shape.kind === "reveal") {
      const i = idx(shape.at);
      const piece = p.revealed !== BanqiPiece.UNSPECIFIED ? p.revealed : banqiFromLetter(layout[i] ?? "");
      if (piece === BanqiPiece.UNSPECIFIED) return false;
      b.value.cells[i] = create(BanqiCellSchema, { state: { case: "revealed", value: piece } });
      if (b.value.firstColor === BanqiColor.UNSPECIFIED) {
        const red = banqiInfo(piece)!.red;
        const firstRed = p.seat === Seat.FIRST ? red : !red;
        b.value.firstColor = firstRed ? BanqiColor.RED : BanqiColor.BLACK;
      }
      b.value.noProgressPlies = 0;
      return true;
    }
    if (shape.kind === "move") {
      const from = idx(shape.path[0]);
      const to = idx(shape.path[shape.path.length - 1]);
      const target = b.value.cells[to];
      if (shape.capture && target.state.case === "revealed") b.value.captured.push(target.state.value);
      b.value.cells[to] = b.value.cells[from];
      b.value.cells[from] = create(BanqiCellSchema, { state: { case: "empty", value: {} } });
      b.value.noProgressPlies = shape.capture ? 0 : b.value.noProgressPlies + 1;
      return true;
    }
  }
  return false;
}
