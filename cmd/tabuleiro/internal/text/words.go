package text

import (
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

// The words of the games that every command and the game screen share.

// Game names a game: "Quoridor".
func Game(p *Printer, g gamev1.Game) string {
	switch g {
	case gamev1.Game_GAME_QUORIDOR:
		return T(p, "game.quoridor")
	case gamev1.Game_GAME_CORNERS:
		return T(p, "game.corners")
	case gamev1.Game_GAME_BANQI:
		return T(p, "game.banqi")
	}
	return "?"
}

// Seat names a seat as its game does, lower case: white and black
// (Quoridor, Corners); in Banqi red and black once the first reveal fixed
// the colours (red says whether the seat is red), first and second before.
func Seat(p *Printer, g gamev1.Game, s gamev1.Seat, colours, red bool) string {
	if g == gamev1.Game_GAME_BANQI {
		switch {
		case colours && red:
			return T(p, "seat.red")
		case colours:
			return T(p, "seat.black")
		case s == gamev1.Seat_SEAT_SECOND:
			return T(p, "seat.second")
		}
		return T(p, "seat.first")
	}
	if s == gamev1.Seat_SEAT_SECOND {
		return T(p, "seat.black")
	}
	return T(p, "seat.white")
}

// reasonKeys are the messages of the ways a game ends.
var reasonKeys = map[gamev1.Reason]string{
	gamev1.Reason_REASON_GOAL:          "reason.goal",
	gamev1.Reason_REASON_PLY_LIMIT:     "reason.ply_limit",
	gamev1.Reason_REASON_MOVE_LIMIT:    "reason.move_limit",
	gamev1.Reason_REASON_DEADLINE:      "reason.deadline",
	gamev1.Reason_REASON_RETURN_HOME:   "reason.return_home",
	gamev1.Reason_REASON_REPETITION:    "reason.repetition",
	gamev1.Reason_REASON_NO_LEGAL_MOVE: "reason.no_legal_move",
	gamev1.Reason_REASON_NO_PIECES:     "reason.no_pieces",
	gamev1.Reason_REASON_RESIGNATION:   "reason.resignation",
	gamev1.Reason_REASON_TIME:          "reason.time",
	gamev1.Reason_REASON_ABANDONMENT:   "reason.abandonment",
	gamev1.Reason_REASON_AGREEMENT:     "reason.agreement",
	gamev1.Reason_REASON_ABORTED:       "reason.aborted",
	gamev1.Reason_REASON_COMPLETED:     "reason.completed",
}

// Reason says how a game ended, after "by": "resignation".
func Reason(p *Printer, r gamev1.Reason) string {
	if k, ok := reasonKeys[r]; ok {
		return T(p, k)
	}
	return T(p, "reason.unspecified")
}

// Outcome says how a game ended, who being the winner's seat word (see
// Seat): "White wins by goal", "Draw by agreement", "Game aborted…"; "" for a game not
// over. you is 1 when the winner plays at this terminal ("White (you)
// wins…"), -1 when the loser does ("…: you lost"), 0 otherwise.
func Outcome(p *Printer, o *gamev1.Outcome, who string, you int) string {
	r := Reason(p, o.GetReason())
	switch o.GetResult() {
	case gamev1.Result_RESULT_WIN:
		switch you {
		case 1:
			return T(p, "outcome.win.you", "who", Capitalize(who), "reason", r)
		case -1:
			return T(p, "outcome.win.lost", "who", Capitalize(who), "reason", r)
		}
		return T(p, "outcome.win", "who", Capitalize(who), "reason", r)
	case gamev1.Result_RESULT_DRAW:
		if o.GetReason() == gamev1.Reason_REASON_ABORTED {
			return T(p, "outcome.aborted") // not a draw: a game that never was
		}
		return T(p, "outcome.draw", "reason", r)
	}
	return ""
}

// levelKeys are the bot levels' names.
var levelKeys = map[gamev1.BotLevel]string{
	gamev1.BotLevel_BOT_LEVEL_EASY:   "level.easy",
	gamev1.BotLevel_BOT_LEVEL_MEDIUM: "level.medium",
	gamev1.BotLevel_BOT_LEVEL_HARD:   "level.hard",
	gamev1.BotLevel_BOT_LEVEL_EXPERT: "level.expert",
}

// Level names a bot level: "hard".
func Level(p *Printer, l gamev1.BotLevel) string {
	if k, ok := levelKeys[l]; ok {
		return T(p, k)
	}
	return "?"
}

// DeletedName is the name the lobby gives a deleted account in its
// finished games (lobby.v1 DeleteAccount; no player may take it).
const DeletedName = "deleted player"

// PlayerName is how a seat's holder is named: a person by their display
// name, a deleted account as "deleted player" in the player's language,
// a bot by its level in the player's language ("Bot (fácil)"; the
// server's display name of a bot is English).
func PlayerName(p *Printer, who *gamev1.Participant) string {
	if l := who.GetBotLevel(); l != gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED {
		return T(p, "player.bot", "level", Level(p, l))
	}
	return Name(p, who.GetDisplayName())
}

// Name is a person's display name as shown: DeletedName in the player's
// language, any other as it is.
func Name(p *Printer, displayName string) string {
	if displayName == DeletedName {
		return T(p, "player.deleted")
	}
	return displayName
}
