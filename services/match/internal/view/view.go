// Package view converts the match domain and engine values to the public
// protos (tabuleiro.game.v1, tabuleiro.match.v1). Every GameView is built
// from a seat's or the spectators' engine.View, never from a Position, so
// that a Banqi face-down identity has no way out of the service (B6).
package view

import (
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/pkg/engine/corners"
	"tabuleiro.dev/pkg/engine/quoridor"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/match/internal/match"
)

// GameOf returns the proto game.
func GameOf(g engine.Game) gamev1.Game {
	switch g {
	case engine.Quoridor:
		return gamev1.Game_GAME_QUORIDOR
	case engine.Corners:
		return gamev1.Game_GAME_CORNERS
	case engine.Banqi:
		return gamev1.Game_GAME_BANQI
	}
	return gamev1.Game_GAME_UNSPECIFIED
}

// EngineGame is the inverse of GameOf; "" for an unknown game.
func EngineGame(g gamev1.Game) engine.Game {
	switch g {
	case gamev1.Game_GAME_QUORIDOR:
		return engine.Quoridor
	case gamev1.Game_GAME_CORNERS:
		return engine.Corners
	case gamev1.Game_GAME_BANQI:
		return engine.Banqi
	}
	return ""
}

// Seat returns the proto seat.
func Seat(s engine.Seat) gamev1.Seat { return gamev1.Seat(s) }

func ts(ms int64) *timestamppb.Timestamp {
	if ms == 0 {
		return nil
	}
	return timestamppb.New(time.UnixMilli(ms))
}

// Outcome returns the proto outcome.
func Outcome(o engine.Outcome) *gamev1.Outcome {
	return &gamev1.Outcome{
		Result: gamev1.Result(o.Result + 1),
		Winner: Seat(o.Winner),
		Reason: gamev1.Reason(o.Reason),
	}
}

// Clocks returns the proto clocks; nil without a clock.
func Clocks(c *match.Clocks) *gamev1.ClockState {
	if c == nil {
		return nil
	}
	return &gamev1.ClockState{
		FirstRemainingMs: c.Remaining[0], SecondRemainingMs: c.Remaining[1],
		Running: Seat(c.Running), AsOf: ts(c.AsOf),
	}
}

// Ply returns the proto ply; revealed is the Banqi piece it revealed, if
// known.
func Ply(p *match.PlyRecord, revealed gamev1.BanqiPiece) *gamev1.Ply {
	if p == nil {
		return nil
	}
	out := &gamev1.Ply{
		Number: int32(p.Number), Seat: Seat(p.Seat), Notation: p.Notation,
		Revealed: revealed, ThinkMs: p.ThinkMS, PlayedAt: ts(p.At), LagMs: p.LagMS,
	}
	if p.ClockMS >= 0 {
		out.ClockRemainingMs = &p.ClockMS
	}
	return out
}

// BanqiPiece returns the proto piece.
func BanqiPiece(p banqi.Piece) gamev1.BanqiPiece {
	i := strings.IndexByte("KABRNCP", p.Letter())
	if i >= 0 {
		return gamev1.BanqiPiece(i + 1)
	}
	if i = strings.IndexByte("kabrncp", p.Letter()); i >= 0 {
		return gamev1.BanqiPiece(i + 8)
	}
	return gamev1.BanqiPiece_BANQI_PIECE_UNSPECIFIED
}

// GameView returns viewer's view (NoSeat: the spectators') of pos, the
// position of st after its first pos.Plies() plies.
func GameView(st *match.State, pos engine.Position, viewer engine.Seat) *gamev1.GameView {
	return GameViewOf(st, pos.View(viewer), viewer)
}

// GameViewOf returns the proto of v, viewer's view of a position of st
// (st gives the game, variant, plies and Banqi commitment).
func GameViewOf(st *match.State, v engine.View, viewer engine.Seat) *gamev1.GameView {
	gv := &gamev1.GameView{
		Game: GameOf(st.Game), Variant: st.Variant, Viewer: Seat(viewer), ToMove: Seat(v.ToMove()),
		PlyCount: int32(v.Plies()), Outcome: Outcome(v.Outcome()), Encoding: v.Encode(),
	}
	if v.Outcome().Over() {
		gv.ToMove = gamev1.Seat_SEAT_UNSPECIFIED
	}
	var revealed gamev1.BanqiPiece
	switch bv := v.(type) {
	case banqi.View:
		gv.Board = &gamev1.GameView_Banqi{Banqi: banqiBoard(bv, st.Commitment)}
		revealed = BanqiPiece(bv.LastRevealed())
	case quoridor.Position:
		gv.Board = &gamev1.GameView_Quoridor{Quoridor: quoridorBoard(bv, st)}
	case corners.Position:
		gv.Board = &gamev1.GameView_Corners{Corners: cornersBoard(bv)}
	}
	if n := v.Plies(); n > 0 && n <= len(st.Plies) {
		gv.LastPly = Ply(&st.Plies[n-1], revealed)
	}
	return gv
}

func banqiBoard(v banqi.View, commitment string) *gamev1.BanqiBoard {
	b := &gamev1.BanqiBoard{Cells: make([]*gamev1.BanqiCell, banqi.NumSquares), SeedCommitment: commitment, NoProgressPlies: int32(v.Quiet())}
	for sq := range banqi.Square(banqi.NumSquares) {
		c := v.Cell(sq)
		switch {
		case c == banqi.Empty:
			b.Cells[sq] = &gamev1.BanqiCell{State: &gamev1.BanqiCell_Empty{Empty: &gamev1.BanqiEmpty{}}}
		case c == banqi.FaceDown:
			b.Cells[sq] = &gamev1.BanqiCell{State: &gamev1.BanqiCell_FaceDown{FaceDown: &gamev1.BanqiFaceDown{}}}
		default:
			b.Cells[sq] = &gamev1.BanqiCell{State: &gamev1.BanqiCell_Revealed{Revealed: BanqiPiece(c.Piece())}}
		}
	}
	for _, l := range []byte("KABRNCPkabrncp") {
		p, _ := banqi.PieceFromLetter(l)
		for range v.CapturedCount(p) {
			b.Captured = append(b.Captured, BanqiPiece(p))
		}
		if n := v.FaceDownCount(p); n > 0 {
			b.FaceDownCounts = append(b.FaceDownCounts, &gamev1.BanqiPieceCount{Piece: BanqiPiece(p), Count: int32(n)})
		}
	}
	switch v.Colour(engine.First) {
	case banqi.Red:
		b.FirstColor = gamev1.BanqiColor_BANQI_COLOR_RED
	case banqi.Black:
		b.FirstColor = gamev1.BanqiColor_BANQI_COLOR_BLACK
	}
	return b
}

func quoridorBoard(p quoridor.Position, st *match.State) *gamev1.QuoridorBoard {
	b := &gamev1.QuoridorBoard{
		First:  &gamev1.QuoridorSide{Pawn: p.Pawn(engine.First).String(), WallsLeft: int32(p.WallsLeft(engine.First)), GoalRank: 9},
		Second: &gamev1.QuoridorSide{Pawn: p.Pawn(engine.Second).String(), WallsLeft: int32(p.WallsLeft(engine.Second)), GoalRank: 1},
	}
	// The position says which walls stand; the wall plies give the order
	// they were placed in (the API's promise) and who placed each. A state
	// without its plies (a bot's request carries only the view) lists the
	// walls in the position's canonical order, unannotated.
	wall := func(m quoridor.Move) *gamev1.QuoridorWall {
		o := gamev1.WallOrientation_WALL_ORIENTATION_HORIZONTAL
		if m.Orientation() == quoridor.Vertical {
			o = gamev1.WallOrientation_WALL_ORIENTATION_VERTICAL
		}
		return &gamev1.QuoridorWall{Anchor: m.At().String(), Orientation: o}
	}
	listed := 0
	for i := range st.Plies[:min(p.Plies(), len(st.Plies))] {
		r := &st.Plies[i]
		if len(r.Notation) != 3 { // pawn plies are a square ("e2"), walls "e3h"
			continue
		}
		m, err := quoridor.ParseMove(r.Notation)
		if err != nil || !m.IsWall() || !p.HasWall(m) {
			continue
		}
		w := wall(m)
		w.PlacedBy, w.PlyNumber = Seat(r.Seat), int32(r.Number)
		b.Walls = append(b.Walls, w)
		listed++
	}
	if all := p.Walls(); listed < len(all) {
		b.Walls = b.Walls[:0]
		for _, m := range all {
			b.Walls = append(b.Walls, wall(m))
		}
	}
	if st.Variant == "limit200" {
		b.PlyLimit = 200
	}
	return b
}

func squares(qs []corners.Square) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.String()
	}
	return out
}

func cornersSide(p corners.Position, s engine.Seat) *gamev1.CornersSide {
	side := &gamev1.CornersSide{Pieces: squares(p.Pieces(s)), Home: squares(p.Home(s)), Target: squares(p.Home(s.Other()))}
	home, target := map[corners.Square]bool{}, map[corners.Square]bool{}
	for _, q := range p.Home(s) {
		home[q] = true
	}
	for _, q := range p.Home(s.Other()) {
		target[q] = true
	}
	for _, q := range p.Pieces(s) {
		if home[q] {
			side.PiecesAtHome++
		}
		if target[q] {
			side.PiecesInTarget++
		}
	}
	return side
}

// cornersBoard returns the structured board of a Corners position (C1–C6).
func cornersBoard(p corners.Position) *gamev1.CornersBoard {
	b := &gamev1.CornersBoard{
		Size: int32(p.Board().Size()), First: cornersSide(p, engine.First), Second: cornersSide(p, engine.Second),
		Diagonal: p.Diagonal(), BlockingAllowed: p.BlockingAllowed(),
		MoveNumber: int32(p.MoveNumber()), DeadlineMove: int32(p.Deadline()), MoveLimit: int32(p.MoveLimit()),
	}
	if m, ok := p.LastPly(); ok {
		b.LastPath = squares(m.Path())
	}
	return b
}

// banqiReveals returns, for each of st's plies, the piece it revealed
// (unspecified for a ply that revealed nothing), replaying the game from
// its layout. A reveal is public from the moment it is played, so this
// never shows a piece still face down. Nil unless st is Banqi.
func banqiReveals(st *match.State) []gamev1.BanqiPiece {
	if st.Game != engine.Banqi || len(st.Plies) == 0 {
		return nil
	}
	pos, err := banqi.New(st.Variant, st.Layout)
	if err != nil {
		return nil
	}
	out := make([]gamev1.BanqiPiece, len(st.Plies))
	for i, p := range st.Plies {
		ply, err := pos.ParsePly(p.Notation)
		if err != nil {
			return out
		}
		if pos, err = pos.Play(ply); err != nil {
			return out
		}
		if v, ok := pos.View(engine.NoSeat).(banqi.View); ok {
			out[i] = BanqiPiece(v.LastRevealed())
		}
	}
	return out
}

// Match returns the whole match as viewer may see it at now.
func Match(st *match.State, pos engine.Position, viewer engine.Seat, now int64) *matchv1.Match {
	m := &matchv1.Match{
		MatchId: st.ID, Game: GameOf(st.Game), Variant: st.Variant, Rated: st.Rated,
		YourSeat: Seat(viewer), Status: matchv1.MatchStatus(st.Status),
		Clocks: Clocks(st.ClocksAt(now)), View: GameView(st, pos, viewer),
		DrawOfferedBy: Seat(st.DrawOffer), Outcome: Outcome(st.Outcome), LastSeq: st.LastSeq,
		CreatedAt: ts(st.CreatedAt), EndedAt: ts(st.EndedAt), Private: st.Private,
	}
	if st.Clock != nil {
		m.TimeControl = &gamev1.TimeControl{BaseMs: st.Clock.BaseMS, IncrementMs: st.Clock.IncrementMS}
	}
	if st.Status == match.StatusWaiting {
		m.FirstPlyDeadline = ts(st.FirstPlyDeadline)
	}
	if st.Status == match.StatusFinished {
		m.Seed, m.Layout = st.Seed, st.Layout
	}
	for i := range st.Players {
		s := st.Seats[i]
		if s.Conn == match.Disconnected && s.AnnounceAt != 0 {
			// Presence as announced: a departure within its grace is not
			// shown yet (no event told of it either).
			s.Conn, s.ReconnectDeadline = match.Connected, 0
		}
		m.Seats = append(m.Seats, &matchv1.SeatState{
			Participant: Participant(engine.Seat(i+1), s.Participant),
			Connection:  matchv1.ConnectionState(s.Conn), ReconnectDeadline: ts(s.ReconnectDeadline),
		})
	}
	revealed := banqiReveals(st)
	for i := range st.Plies {
		var r gamev1.BanqiPiece
		if i < len(revealed) {
			r = revealed[i]
		}
		m.Plies = append(m.Plies, Ply(&st.Plies[i], r))
	}
	return m
}

// Participant returns the proto participant of seat s.
func Participant(s engine.Seat, p match.Participant) *gamev1.Participant {
	return &gamev1.Participant{
		Seat: Seat(s), PlayerId: p.PlayerID, DisplayName: p.DisplayName,
		BotLevel: gamev1.BotLevel(p.BotLevel), Rating: p.Rating, Username: p.Username,
	}
}

// Event returns ev as viewer sees it; pos is the position after ev.Plies
// plies of st.
func Event(ev match.Event, st *match.State, pos engine.Position, viewer engine.Seat) *matchv1.MatchEvent {
	out := &matchv1.MatchEvent{Seq: ev.Seq, At: ts(ev.At)}
	switch ev.Kind {
	case match.EventPly:
		gv := GameView(st, pos, viewer)
		var revealed gamev1.BanqiPiece
		if gv.GetLastPly() != nil {
			revealed = gv.GetLastPly().GetRevealed()
		}
		out.Kind = &matchv1.MatchEvent_PlyPlayed{PlyPlayed: &matchv1.PlyPlayed{
			Ply: Ply(ev.Ply, revealed), Clocks: Clocks(ev.Clocks), View: gv,
		}}
	case match.EventDrawOffered:
		out.Kind = &matchv1.MatchEvent_DrawOffered{DrawOffered: &matchv1.DrawOffered{By: Seat(ev.Seat)}}
	case match.EventDrawDeclined:
		out.Kind = &matchv1.MatchEvent_DrawDeclined{DrawDeclined: &matchv1.DrawDeclined{By: Seat(ev.Seat)}}
	case match.EventDisconnected:
		out.Kind = &matchv1.MatchEvent_PlayerDisconnected{PlayerDisconnected: &matchv1.PlayerDisconnected{
			Seat: Seat(ev.Seat), ReconnectDeadline: ts(ev.Deadline),
		}}
	case match.EventReconnected:
		out.Kind = &matchv1.MatchEvent_PlayerReconnected{PlayerReconnected: &matchv1.PlayerReconnected{Seat: Seat(ev.Seat)}}
	case match.EventEnded:
		out.Kind = &matchv1.MatchEvent_GameEnded{GameEnded: &matchv1.GameEnded{
			Outcome: Outcome(ev.Outcome), Clocks: Clocks(ev.Clocks), View: GameView(st, pos, viewer),
			Seed: ev.Seed, Layout: ev.Layout,
		}}
	}
	return out
}

// Summary returns the proto summary of a live match.
func Summary(sum *match.Summary) *matchv1.MatchSummary {
	out := &matchv1.MatchSummary{
		MatchId: sum.ID, Game: GameOf(engine.Game(sum.Game)), Variant: sum.Variant, Rated: sum.Rated,
		PlyCount: int32(sum.Plies), Spectators: int32(sum.Spectators), Status: matchv1.MatchStatus(sum.Status),
		CreatedAt: ts(sum.CreatedAt), StartedAt: ts(sum.StartedAt), Private: sum.Private,
	}
	for i, p := range sum.Seats {
		out.Seats = append(out.Seats, Participant(engine.Seat(i+1), p))
	}
	if sum.Clock != nil {
		out.TimeControl = &gamev1.TimeControl{BaseMs: sum.Clock.BaseMS, IncrementMs: sum.Clock.IncrementMS}
	}
	return out
}
