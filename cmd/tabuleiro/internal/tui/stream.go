package tui

import (
	"errors"
	"fmt"
	"io"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

func (m *Model) stream(msg streamMsg) tea.Cmd {
	if msg.err != nil {
		if errors.Is(msg.err, io.EOF) || m.phase != phasePlaying {
			return nil // the stream ends after game_ended
		}
		if m.table.Rejoin == nil {
			m.phase, m.err = phaseFailed, fmt.Errorf("%s: %w", m.t("error.connection_lost"), msg.err)
			return nil
		}
		m.status = m.t("status.rejoining")
		gen, seat, last, rejoin := m.gen, msg.seat, m.lastSeq, m.table.Rejoin
		return func() tea.Msg {
			c, err := rejoin(seat, last)
			return rejoinMsg{gen: gen, seat: seat, conn: c, err: err}
		}
	}
	next := m.recvCmd(msg.seat, msg.conn)
	r := msg.resp
	switch {
	case r.GetPlyRejected() != nil:
		pr := r.GetPlyRejected()
		m.pending = 0
		if t, ok := text.ReasonText(m.p, pr.GetErrorReason(), pr.GetErrorMetadata()); ok {
			m.status = t // names the ply and the rule
		} else {
			m.status = m.yourPawn(m.refusal(pr.GetNotation(), pr.GetReason(), pr.GetRule()))
		}
		return tea.Batch(next, m.afterChange())
	case r.GetActionRejected() != nil:
		ar := r.GetActionRejected()
		if t, ok := text.ReasonText(m.p, ar.GetErrorReason(), ar.GetErrorMetadata()); ok {
			m.status = t
		} else {
			m.status = m.t("status.action_refused", "reason", ar.GetReason())
		}
		return next
	case r.GetDrain() != nil:
		m.status = m.t("status.draining")
		return next
	}
	if msg.seat != m.primary {
		return next // the other seat of a local game sees the same events
	}
	over := m.phase == phaseOver
	switch {
	case r.GetSnapshot() != nil:
		m.snapshot(r.GetSnapshot())
	case r.GetEvent() != nil:
		m.event(r.GetEvent())
	default:
		return next
	}
	var rematch tea.Cmd
	if !over && m.phase == phaseOver {
		rematch = m.watchRematchCmd()
	}
	return tea.Batch(next, m.afterChange(), m.startTick(), rematch)
}

func (m *Model) startTick() tea.Cmd {
	if m.ticking || m.phase != phasePlaying || m.clocks.GetRunning() == gamev1.Seat_SEAT_UNSPECIFIED {
		return nil
	}
	m.ticking = true
	return tick()
}

func (m *Model) snapshot(s *matchv1.Match) {
	first := m.match == nil
	m.match = s
	m.view = s.GetView()
	m.plies = append([]*gamev1.Ply(nil), s.GetPlies()...)
	m.setClocks(s.GetClocks())
	m.drawBy = s.GetDrawOfferedBy()
	m.lastSeq = s.GetLastSeq()
	if s.GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED {
		// A game resumed after it ended (a flag fell, or it was abandoned
		// while this terminal was away): its view may lack the outcome
		// the match carries.
		if m.view == nil {
			m.view = &gamev1.GameView{}
		}
		if m.view.GetOutcome().GetResult() == gamev1.Result_RESULT_ONGOING {
			m.view.Outcome = s.GetOutcome()
		}
		if first {
			m.status = m.t("status.ended_away")
		}
		m.phase = phaseOver
		if m.clocks != nil {
			m.clocks.Running = gamev1.Seat_SEAT_UNSPECIFIED
		}
	}
	if first {
		m.lay = m.layoutFor()
		m.cursor = m.homeSquare()
	}
}

func (m *Model) setClocks(c *gamev1.ClockState) {
	m.clocks, m.clocksAt = c, m.deps.Now()
}

func (m *Model) event(ev *matchv1.MatchEvent) {
	if ev.GetSeq() > m.lastSeq {
		m.lastSeq = ev.GetSeq()
	}
	switch {
	case ev.GetPlyPlayed() != nil:
		pp := ev.GetPlyPlayed()
		m.lastFrom = noSquare
		if m.view.GetQuoridor() != nil && pp.GetView().GetQuoridor() != nil {
			if before := m.pawn(pp.GetPly().GetSeat()); before != m.pawnIn(pp.GetView(), pp.GetPly().GetSeat()) {
				m.lastFrom = before
			}
		}
		if n := int(pp.GetPly().GetNumber()); n == len(m.plies)+1 {
			m.plies = append(m.plies, pp.GetPly())
		}
		if pp.GetPly().GetSeat() != m.drawBy {
			m.drawBy = gamev1.Seat_SEAT_UNSPECIFIED // an offer lapses when the other seat plays
		}
		m.view = pp.GetView()
		m.setClocks(pp.GetClocks())
		m.pending = 0
		if m.mine(pp.GetPly().GetSeat()) {
			// A wall placed, the next ply starts in move mode: walls are
			// the exception, and the next turn may be the other player's
			// at this keyboard.
			m.status, m.wallMode, m.wallStart = "", false, false
			if n := pp.GetPly().GetNotation(); m.view.GetQuoridor() != nil && (strings.HasSuffix(n, "h") || strings.HasSuffix(n, "v")) {
				// A wall placed: the square cursor goes back to the pawn
				// that is selected next (the player's own; at one
				// keyboard, the pawn of the seat to move), not the
				// wall's anchor, where Enter would act on another square.
				s := pp.GetPly().GetSeat()
				if m.local() {
					s = m.view.GetToMove()
				}
				m.cursor = m.pawn(s)
			} else if m.view.GetQuoridor() != nil {
				// A pawn move, typed or not: the cursor on the pawn's new
				// square, where the arrows and Enter leave it.
				m.cursor = m.pawn(pp.GetPly().GetSeat())
			}
		} else if m.reminder == "" {
			// While the reminder is up (an opponent who moves first,
			// before the person's first key), the board and the move
			// list show the ply.
			m.status = m.t("status.played", "seat", m.seatName(pp.GetPly().GetSeat()), "ply", pp.GetPly().GetNotation())
		}
	case ev.GetDrawOffered() != nil:
		m.drawBy = ev.GetDrawOffered().GetBy()
		if m.mine(other(m.drawBy)) {
			m.status = m.t("status.draw_offered_to_you", "seat", m.seatName(m.drawBy))
		} else {
			m.status = m.t("status.draw_offered")
		}
	case ev.GetDrawDeclined() != nil:
		m.drawBy = gamev1.Seat_SEAT_UNSPECIFIED
		m.status = m.t("status.draw_declined", "seat", m.seatName(ev.GetDrawDeclined().GetBy()))
	case ev.GetPlayerDisconnected() != nil:
		if s := ev.GetPlayerDisconnected().GetSeat(); !m.mine(s) {
			m.away[s] = true
			m.status = m.t("status.disconnected", "seat", m.seatName(s))
			if dl := ev.GetPlayerDisconnected().GetReconnectDeadline(); dl != nil {
				// When the game is ruled, as a time of day: the status
				// line is not redrawn every second, so a count of
				// seconds would stand still.
				m.status = m.t("status.disconnected_until", "seat", m.seatName(s), "time", dl.AsTime().Local().Format(m.t("time.of_day")))
			}
		}
	case ev.GetPlayerReconnected() != nil:
		// A seat's first connection is announced as a reconnection too:
		// "is back" only after it was seen leaving.
		if s := ev.GetPlayerReconnected().GetSeat(); !m.mine(s) && m.away[s] {
			delete(m.away, s)
			m.status = m.t("status.back", "seat", m.seatName(s))
		}
	case ev.GetGameEnded() != nil:
		ge := ev.GetGameEnded()
		if ge.GetView() != nil {
			m.view = ge.GetView()
		}
		if m.view != nil {
			m.view.Outcome = ge.GetOutcome()
		}
		m.setClocks(ge.GetClocks())
		if m.clocks != nil {
			m.clocks.Running = gamev1.Seat_SEAT_UNSPECIFIED
		}
		m.phase = phaseOver
		m.pending = 0
		m.status = ""
	}
}
