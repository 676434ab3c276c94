package play

import (
	"strings"
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
)

// The resume command names the server and the data directory of this run
// when they are not the defaults: another directory holds other
// identities and games, and `play --resume` alone would not find them.
func TestResumeCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		t    tables
		want string
	}{
		{tables{local: true}, "tabuleiro play --resume"},
		{tables{local: true, dataDir: "/tmp/two"}, "tabuleiro play --resume --data-dir /tmp/two"},
		{tables{local: true, dataDir: "/tmp/my games"}, "tabuleiro play --resume --data-dir '/tmp/my games'"},
		{tables{addr: "host:7070"}, "tabuleiro play --resume --server host:7070"},
		{tables{addr: "host:7070", dataDir: "it's"}, `tabuleiro play --resume --server host:7070 --data-dir 'it'\''s'`},
	}
	for _, tt := range tests {
		if got := tt.t.resumeCommand(); got != tt.want {
			t.Errorf("resumeCommand = %q, want %q", got, tt.want)
		}
	}
	tb := tables{local: true, dataDir: "/d"}
	if got := tb.unfinishedLine(2, true); !strings.Contains(got, "2 other unfinished games") || !strings.HasSuffix(got, "--data-dir /d") {
		t.Errorf("unfinishedLine = %q", got)
	}
}

// `play` with flags offers the unfinished games those flags describe (same
// game, variant, clock and bot level, or the same keyboard) and only
// mentions the others.
func TestCompatibleUnfinished(t *testing.T) {
	t.Parallel()
	me, second := client.Player{ID: "p_me"}, "p_two"
	bot := func(l gamev1.BotLevel) *gamev1.Participant {
		return &gamev1.Participant{DisplayName: "Bot", BotLevel: l}
	}
	sum := func(g gamev1.Game, variant string, tc *gamev1.TimeControl, other *gamev1.Participant) *lobbyv1.MatchSummary {
		return &lobbyv1.MatchSummary{Game: g, Variant: variant, TimeControl: tc,
			Participants: []*gamev1.Participant{{PlayerId: me.ID}, other}}
	}
	q, easy := gamev1.Game_GAME_QUORIDOR, gamev1.BotLevel_BOT_LEVEL_EASY
	vsEasy := tables{me: me, game: q, variant: "standard", opp: opponent{level: easy}}
	local := tables{me: me, game: q, variant: "standard", opp: opponent{local: true}, secondID: second}
	room := tables{me: me, game: q, variant: "standard", opp: opponent{room: "ABCD"}}
	five := &gamev1.TimeControl{BaseMs: 300_000}
	tests := []struct {
		name string
		t    tables
		m    *lobbyv1.MatchSummary
		want bool
	}{
		{"same bot game", vsEasy, sum(q, "standard", nil, bot(easy)), true},
		{"another level", vsEasy, sum(q, "standard", nil, bot(gamev1.BotLevel_BOT_LEVEL_HARD)), false},
		{"another variant", vsEasy, sum(q, "mini", nil, bot(easy)), false},
		{"another game", vsEasy, sum(gamev1.Game_GAME_CORNERS, "standard", nil, bot(easy)), false},
		{"a clock", vsEasy, sum(q, "standard", five, bot(easy)), false},
		{"a person", vsEasy, sum(q, "standard", nil, &gamev1.Participant{PlayerId: "p_x"}), false},
		{"one keyboard", local, sum(q, "standard", nil, &gamev1.Participant{PlayerId: second}), true},
		{"one keyboard, a bot game", local, sum(q, "standard", nil, bot(easy)), false},
		{"a room", room, sum(q, "standard", nil, &gamev1.Participant{PlayerId: "p_x"}), false},
	}
	for _, tt := range tests {
		if got := tt.t.compatible(tt.m); got != tt.want {
			t.Errorf("%s: compatible = %v, want %v", tt.name, got, tt.want)
		}
	}
}
