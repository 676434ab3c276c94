package tui

import (
	"errors"
	"io"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
)

// Rematcher is the rematch of a finished room game with the same opponent
// (lobby.v1 OfferRematch, DeclineRematch and WatchRematch): both players
// offer, and the new match swaps the seats.
type Rematcher struct {
	// Offer offers a rematch of matchID, or accepts the opponent's offer.
	Offer func(matchID string) (*lobbyv1.Rematch, error)
	// Decline declines the opponent's offer or withdraws this player's.
	Decline func(matchID string) (*lobbyv1.Rematch, error)
	// Watch follows the rematch of matchID: next returns each state in
	// turn and io.EOF after the last (started or declined).
	Watch func(matchID string) (next func() (*lobbyv1.Rematch, error), err error)
	// Table joins the rematch's new match.
	Table func(r *lobbyv1.Rematch) (*Table, error)
}

// rematchMsg is a rematch state: an answer to an offer or a decline, or
// one update of the watch (next then reads the following one).
type rematchMsg struct {
	gen  int
	r    *lobbyv1.Rematch
	next func() (*lobbyv1.Rematch, error)
	err  error
}

// watchRematchCmd opens the rematch watch of the finished match.
func (m *Model) watchRematchCmd() tea.Cmd {
	rm := m.deps.Rematch
	if rm == nil || m.table == nil || m.local() {
		return nil
	}
	gen, id := m.gen, m.table.MatchID
	return func() tea.Msg {
		next, err := rm.Watch(id)
		if err != nil {
			return rematchMsg{gen: gen, err: err}
		}
		r, err := next()
		return rematchMsg{gen: gen, r: r, next: next, err: err}
	}
}

func nextRematchCmd(gen int, next func() (*lobbyv1.Rematch, error)) tea.Cmd {
	return func() tea.Msg {
		r, err := next()
		return rematchMsg{gen: gen, r: r, next: next, err: err}
	}
}

// rematchUpdate takes a rematch state in.
func (m *Model) rematchUpdate(msg rematchMsg) tea.Cmd {
	if msg.err != nil {
		if errors.Is(msg.err, io.EOF) {
			return nil
		}
		if msg.next == nil || m.rematch == nil { // an answer, or a watch that never started
			m.status = m.t("rematch.failed", "error", m.errText(msg.err))
		}
		return nil
	}
	var cmd tea.Cmd
	if msg.next != nil {
		cmd = nextRematchCmd(msg.gen, msg.next)
	}
	r := msg.r
	if r == nil || m.phase != phaseOver || m.rematchJoining {
		return cmd
	}
	m.rematch = r
	opp := cmpOr(r.GetOpponent().GetDisplayName(), m.t("rematch.your_opponent"))
	mine := slices.ContainsFunc(r.GetOfferedBy(), func(id string) bool { return id != r.GetOpponent().GetPlayerId() })
	theirs := slices.Contains(r.GetOfferedBy(), r.GetOpponent().GetPlayerId())
	switch r.GetStatus() {
	case lobbyv1.RematchStatus_REMATCH_STATUS_STARTED:
		m.rematchJoining = true
		m.phase = phaseStarting
		m.view, m.match = nil, nil
		m.notice = m.t("rematch.joining", "name", opp)
		table := m.deps.Rematch.Table
		return func() tea.Msg {
			t, err := table(r)
			return tableMsg{t: t, err: err}
		}
	case lobbyv1.RematchStatus_REMATCH_STATUS_DECLINED:
		if r.GetDeclinedBy() == r.GetOpponent().GetPlayerId() {
			m.status = m.t("rematch.declined", "name", opp)
		} else {
			m.status = m.t("rematch.none")
		}
	case lobbyv1.RematchStatus_REMATCH_STATUS_OFFERED:
		switch {
		case theirs && mine:
			m.status = m.t("rematch.both")
		case theirs:
			m.status = m.t("rematch.offered", "name", opp)
		case mine:
			m.status = m.t("rematch.waiting", "name", opp)
		}
	}
	return cmd
}

// rematchOpen reports whether a rematch can still be offered or accepted.
func (m *Model) rematchOpen() bool {
	if m.deps.Rematch == nil || m.table == nil || m.local() {
		return false
	}
	st := m.rematch.GetStatus()
	return st != lobbyv1.RematchStatus_REMATCH_STATUS_DECLINED && st != lobbyv1.RematchStatus_REMATCH_STATUS_STARTED
}

func (m *Model) offerRematchCmd() tea.Cmd {
	offer, gen, id := m.deps.Rematch.Offer, m.gen, m.table.MatchID
	return func() tea.Msg {
		r, err := offer(id)
		return rematchMsg{gen: gen, r: r, err: err}
	}
}

func (m *Model) declineRematchCmd() tea.Cmd {
	decline, gen, id := m.deps.Rematch.Decline, m.gen, m.table.MatchID
	return func() tea.Msg {
		r, err := decline(id)
		return rematchMsg{gen: gen, r: r, err: err}
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
