package redisstore

import (
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
)

// The encoding of a match's state, plies and events in Redis and on its
// channel. A value is one tag byte and a message in the protobuf wire
// format (written field by field with protowire: no reflection, no
// intermediate structs), a quarter to a third of its JSON and several
// times faster to write and read. Values written by earlier versions are
// JSON objects (they start with '{'), and published commits the text form
// "#VERSION EVENTS\n…": both are still read, so a match stored before an
// upgrade goes on after it. Options.JSON writes JSON, for the first step
// of a rolling upgrade from a version that reads only JSON.
//
// Every integer is a sint64 (zigzag varint); zero values, empty strings
// and absent messages are left out. The messages and their field numbers
// (a field is never renumbered; a removed one is never reused):
//
//	PlyRecord   1 number, 2 seat, 3 notation, 4 clock_ms, 5 think_ms, 6 lag_ms, 7 at, 8 seq
//	Participant 1 player_id, 2 display_name, 3 bot_level, 4 rating (present when set)
//	SeatState   1 participant, 2 conn, 3 reconnect_deadline, 4 epoch, 5 announce_at
//	TimeControl 1 base_ms, 2 increment_ms
//	Outcome     1 result, 2 winner, 3 reason
//	Clocks      1 remaining_first, 2 remaining_second, 3 running, 4 as_of
//	State       1 id, 2 game, 3 variant, 4 rated, 5 draws, 6 players, 7 seat_first,
//	            8 seat_second, 9 clock, 10 remaining_first, 11 remaining_second,
//	            12 turn_start, 13 to_move, 14 status, 15 draw_offer, 16 outcome,
//	            17 last_seq, 18 created_at, 19 first_ply_deadline, 20 ended_at,
//	            21 layout, 22 seed, 23 commitment, 24 private, 25 window_ms,
//	            26 credited, 27 invited (repeated), 28 invited_by (repeated, one
//	            per invited, NoSeat included), 29 lag_quota_first, 30
//	            lag_quota_second, 31 lag_ms_first, 32 lag_ms_second
//	Event       1 match_id (left out: the key or channel names the match),
//	            2 seq, 3 at, 4 kind, 5 plies, 6 ply, 7 clocks, 8 seat,
//	            9 deadline, 10 epoch, 11 outcome, 12 seed, 13 layout
//
// In an event's ply, number, at and seq are left out when they are the
// event's plies, at and seq (as they always are), and so is its clocks'
// as_of when it is the event's at: the decoder takes the event's. Such a
// field that differs is written even when it is zero.
//
// A published commit (see withCommit) is tagCommit, then as uvarints the
// version and the commit's number of events, then the last event, the
// state and each new ply, each as a uvarint length and the tagged value.
const (
	tagValue  = 0x01 // a binary value
	tagCommit = 0x02 // a published commit, binary
)

// appendVarint appends field num holding v, even when zero.
func appendVarint(b []byte, num protowire.Number, v int64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, protowire.EncodeZigZag(v))
}

func appendInt(b []byte, num protowire.Number, v int64) []byte {
	if v == 0 {
		return b
	}
	return appendVarint(b, num, v)
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBool(b []byte, num protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	return appendInt(b, num, 1)
}

// appendMessage appends field num holding the message that body appends.
func appendMessage(b []byte, num protowire.Number, body func([]byte) []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	at := len(b)
	b = append(b, 0) // one length byte, moved if the message needs more
	b = body(b)
	n := len(b) - at - 1
	if n < 128 {
		b[at] = byte(n)
		return b
	}
	size := protowire.SizeVarint(uint64(n))
	b = append(b, make([]byte, size-1)...)
	copy(b[at+size:], b[at+1:at+1+n])
	protowire.AppendVarint(b[at:at], uint64(n))
	return b
}

// appendIntUnless appends field num, even when zero, unless v is same.
func appendIntUnless(b []byte, num protowire.Number, v, same int64) []byte {
	if v == same {
		return b
	}
	return appendVarint(b, num, v)
}

// appendPlyFields appends p's fields; of an event ev's ply, those that
// are the event's are left out.
func appendPlyFields(b []byte, p *match.PlyRecord, ev *match.Event) []byte {
	if ev != nil {
		b = appendIntUnless(b, 1, int64(p.Number), int64(ev.Plies))
	} else {
		b = appendInt(b, 1, int64(p.Number))
	}
	b = appendInt(b, 2, int64(p.Seat))
	b = appendString(b, 3, p.Notation)
	b = appendInt(b, 4, p.ClockMS)
	b = appendInt(b, 5, p.ThinkMS)
	b = appendInt(b, 6, p.LagMS)
	if ev != nil {
		b = appendIntUnless(b, 7, p.At, ev.At)
		return appendIntUnless(b, 8, p.Seq, ev.Seq)
	}
	b = appendInt(b, 7, p.At)
	return appendInt(b, 8, p.Seq)
}

func appendOutcome(b []byte, num protowire.Number, o engine.Outcome) []byte {
	if o == (engine.Outcome{}) {
		return b
	}
	return appendMessage(b, num, func(b []byte) []byte {
		b = appendInt(b, 1, int64(o.Result))
		b = appendInt(b, 2, int64(o.Winner))
		return appendInt(b, 3, int64(o.Reason))
	})
}

func appendSeat(b []byte, num protowire.Number, s *match.SeatState) []byte {
	return appendMessage(b, num, func(b []byte) []byte {
		b = appendMessage(b, 1, func(b []byte) []byte {
			p := &s.Participant
			b = appendString(b, 1, p.PlayerID)
			b = appendString(b, 2, p.DisplayName)
			b = appendInt(b, 3, int64(p.BotLevel))
			if p.Rating != nil {
				b = appendVarint(b, 4, int64(*p.Rating))
			}
			return appendString(b, 5, p.Username)
		})
		b = appendInt(b, 2, int64(s.Conn))
		b = appendInt(b, 3, s.ReconnectDeadline)
		b = appendInt(b, 4, s.Epoch)
		return appendInt(b, 5, s.AnnounceAt)
	})
}

// encodeState returns st in the binary form (its Version and Plies are
// stored apart).
func encodeState(st *match.State) []byte {
	b := make([]byte, 0, 256)
	b = append(b, tagValue)
	b = appendString(b, 1, st.ID)
	b = appendString(b, 2, string(st.Game))
	b = appendString(b, 3, st.Variant)
	b = appendBool(b, 4, st.Rated)
	b = appendBool(b, 5, st.Draws)
	b = appendInt(b, 6, int64(st.Players))
	b = appendSeat(b, 7, &st.Seats[0])
	b = appendSeat(b, 8, &st.Seats[1])
	if tc := st.Clock; tc != nil {
		b = appendMessage(b, 9, func(b []byte) []byte {
			b = appendInt(b, 1, tc.BaseMS)
			return appendInt(b, 2, tc.IncrementMS)
		})
	}
	b = appendInt(b, 10, st.Remaining[0])
	b = appendInt(b, 11, st.Remaining[1])
	b = appendInt(b, 12, st.TurnStart)
	b = appendInt(b, 13, int64(st.ToMove))
	b = appendInt(b, 14, int64(st.Status))
	b = appendInt(b, 15, int64(st.DrawOffer))
	b = appendOutcome(b, 16, st.Outcome)
	b = appendInt(b, 17, st.LastSeq)
	b = appendInt(b, 18, st.CreatedAt)
	b = appendInt(b, 19, st.FirstPlyDeadline)
	b = appendInt(b, 20, st.EndedAt)
	b = appendString(b, 21, st.Layout)
	b = appendString(b, 22, st.Seed)
	b = appendString(b, 23, st.Commitment)
	b = appendBool(b, 24, st.Private)
	b = appendInt(b, 25, st.WindowMS)
	b = appendInt(b, 26, st.Credited)
	for _, p := range st.Invited {
		b = protowire.AppendTag(b, 27, protowire.BytesType)
		b = protowire.AppendString(b, p)
	}
	for _, s := range st.InvitedBy {
		b = appendVarint(b, 28, int64(s))
	}
	b = appendInt(b, 29, st.LagQuota[0])
	b = appendInt(b, 30, st.LagQuota[1])
	b = appendInt(b, 31, st.LagMS[0])
	return appendInt(b, 32, st.LagMS[1])
}

// encodePly returns p in the binary form.
func encodePly(p *match.PlyRecord) []byte {
	return appendPlyFields(append(make([]byte, 0, 40), tagValue), p, nil)
}

// encodeEvent returns e in the binary form, without its match id.
func encodeEvent(e *match.Event) []byte {
	b := make([]byte, 0, 96)
	b = append(b, tagValue)
	b = appendInt(b, 2, e.Seq)
	b = appendInt(b, 3, e.At)
	b = appendInt(b, 4, int64(e.Kind))
	b = appendInt(b, 5, int64(e.Plies))
	if e.Ply != nil {
		b = appendMessage(b, 6, func(b []byte) []byte { return appendPlyFields(b, e.Ply, e) })
	}
	if c := e.Clocks; c != nil {
		b = appendMessage(b, 7, func(b []byte) []byte {
			b = appendInt(b, 1, c.Remaining[0])
			b = appendInt(b, 2, c.Remaining[1])
			b = appendInt(b, 3, int64(c.Running))
			return appendIntUnless(b, 4, c.AsOf, e.At)
		})
	}
	b = appendInt(b, 8, int64(e.Seat))
	b = appendInt(b, 9, e.Deadline)
	b = appendInt(b, 10, e.Epoch)
	b = appendOutcome(b, 11, e.Outcome)
	b = appendString(b, 12, e.Seed)
	return appendString(b, 13, e.Layout)
}

var errMalformed = errors.New("malformed binary value")

// fields calls f with each field of message b: its number, and its value
// (v for a varint, decoded from zigzag; s for bytes).
func fields(b []byte, f func(num protowire.Number, v int64, s []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errMalformed
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			u, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return errMalformed
			}
			b = b[n:]
			if err := f(num, protowire.DecodeZigZag(u), nil); err != nil {
				return err
			}
		case protowire.BytesType:
			s, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return errMalformed
			}
			b = b[n:]
			if err := f(num, 0, s); err != nil {
				return err
			}
		default: // a field of a later version: skipped
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return errMalformed
			}
			b = b[n:]
		}
	}
	return nil
}

func decodePlyFields(b []byte, p *match.PlyRecord) error {
	return fields(b, func(num protowire.Number, v int64, s []byte) error {
		switch num {
		case 1:
			p.Number = int(v)
		case 2:
			p.Seat = engine.Seat(v)
		case 3:
			p.Notation = string(s)
		case 4:
			p.ClockMS = v
		case 5:
			p.ThinkMS = v
		case 6:
			p.LagMS = v
		case 7:
			p.At = v
		case 8:
			p.Seq = v
		}
		return nil
	})
}

func decodeOutcome(b []byte, o *engine.Outcome) error {
	return fields(b, func(num protowire.Number, v int64, _ []byte) error {
		switch num {
		case 1:
			o.Result = engine.Result(v)
		case 2:
			o.Winner = engine.Seat(v)
		case 3:
			o.Reason = engine.Reason(v)
		}
		return nil
	})
}

func decodeSeat(b []byte, st *match.SeatState) error {
	return fields(b, func(num protowire.Number, v int64, s []byte) error {
		switch num {
		case 1:
			p := &st.Participant
			return fields(s, func(num protowire.Number, v int64, s []byte) error {
				switch num {
				case 1:
					p.PlayerID = string(s)
				case 2:
					p.DisplayName = string(s)
				case 3:
					p.BotLevel = int(v)
				case 4:
					r := int32(v)
					p.Rating = &r
				case 5:
					p.Username = string(s)
				}
				return nil
			})
		case 2:
			st.Conn = match.Connection(v)
		case 3:
			st.ReconnectDeadline = v
		case 4:
			st.Epoch = v
		case 5:
			st.AnnounceAt = v
		}
		return nil
	})
}

// encodeValue returns v in the binary form, written by binary (a tagged
// value), or as JSON when asJSON (Options.JSON).
func encodeValue[T any](asJSON bool, v *T, binary func(*T) []byte) ([]byte, error) {
	if asJSON {
		return json.Marshal(v)
	}
	return binary(v), nil
}

// decodeValue decodes a stored value into v: a binary one (tagValue, then
// the message) with binary, any other as JSON (as earlier versions wrote).
func decodeValue[T any](b []byte, v *T, binary func([]byte, *T) error) error {
	if len(b) == 0 || b[0] != tagValue {
		return json.Unmarshal(b, v)
	}
	return binary(b[1:], v)
}

// decodeState decodes a stored state, binary or JSON, into st.
func decodeState(b []byte, st *match.State) error { return decodeValue(b, st, decodeStateFields) }

func decodeStateFields(b []byte, st *match.State) error {
	return fields(b, func(num protowire.Number, v int64, s []byte) error {
		switch num {
		case 1:
			st.ID = string(s)
		case 2:
			st.Game = engine.Game(s)
		case 3:
			st.Variant = string(s)
		case 4:
			st.Rated = v != 0
		case 5:
			st.Draws = v != 0
		case 6:
			st.Players = int(v)
		case 7:
			return decodeSeat(s, &st.Seats[0])
		case 8:
			return decodeSeat(s, &st.Seats[1])
		case 9:
			tc := &match.TimeControl{}
			st.Clock = tc
			return fields(s, func(num protowire.Number, v int64, _ []byte) error {
				switch num {
				case 1:
					tc.BaseMS = v
				case 2:
					tc.IncrementMS = v
				}
				return nil
			})
		case 10:
			st.Remaining[0] = v
		case 11:
			st.Remaining[1] = v
		case 12:
			st.TurnStart = v
		case 13:
			st.ToMove = engine.Seat(v)
		case 14:
			st.Status = match.Status(v)
		case 15:
			st.DrawOffer = engine.Seat(v)
		case 16:
			return decodeOutcome(s, &st.Outcome)
		case 17:
			st.LastSeq = v
		case 18:
			st.CreatedAt = v
		case 19:
			st.FirstPlyDeadline = v
		case 20:
			st.EndedAt = v
		case 21:
			st.Layout = string(s)
		case 22:
			st.Seed = string(s)
		case 23:
			st.Commitment = string(s)
		case 24:
			st.Private = v != 0
		case 25:
			st.WindowMS = v
		case 26:
			st.Credited = v
		case 27:
			st.Invited = append(st.Invited, string(s))
		case 28:
			st.InvitedBy = append(st.InvitedBy, engine.Seat(v))
		case 29:
			st.LagQuota[0] = v
		case 30:
			st.LagQuota[1] = v
		case 31:
			st.LagMS[0] = v
		case 32:
			st.LagMS[1] = v
		}
		return nil
	})
}

// decodePly decodes a stored ply, binary or JSON, into p.
func decodePly(b []byte, p *match.PlyRecord) error { return decodeValue(b, p, decodePlyFields) }

// decodeEvent decodes an event of match id, binary or JSON, into e (a
// zero Event): its match id is id unless the value names one.
func decodeEvent(b []byte, id string, e *match.Event) error {
	if err := decodeValue(b, e, decodeEventFields); err != nil {
		return err
	}
	if e.MatchID == "" {
		e.MatchID = id
	}
	return nil
}

func decodeEventFields(b []byte, e *match.Event) error {
	var ply, clocks []byte
	err := fields(b, func(num protowire.Number, v int64, s []byte) error {
		switch num {
		case 1:
			e.MatchID = string(s)
		case 2:
			e.Seq = v
		case 3:
			e.At = v
		case 4:
			e.Kind = match.EventKind(v)
		case 5:
			e.Plies = int(v)
		case 6:
			ply = s
			if ply == nil {
				ply = []byte{}
			}
		case 7:
			clocks = s
			if clocks == nil {
				clocks = []byte{}
			}
		case 8:
			e.Seat = engine.Seat(v)
		case 9:
			e.Deadline = v
		case 10:
			e.Epoch = v
		case 11:
			return decodeOutcome(s, &e.Outcome)
		case 12:
			e.Seed = string(s)
		case 13:
			e.Layout = string(s)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if ply != nil { // its number, at and seq are the event's unless written
		p := &match.PlyRecord{Number: e.Plies, At: e.At, Seq: e.Seq}
		e.Ply = p
		if err := decodePlyFields(ply, p); err != nil {
			return err
		}
	}
	if clocks != nil { // its as_of is the event's at unless written
		c := &match.Clocks{AsOf: e.At}
		e.Clocks = c
		return fields(clocks, func(num protowire.Number, v int64, _ []byte) error {
			switch num {
			case 1:
				c.Remaining[0] = v
			case 2:
				c.Remaining[1] = v
			case 3:
				c.Running = engine.Seat(v)
			case 4:
				c.AsOf = v
			}
			return nil
		})
	}
	return nil
}

// encodeCommit returns the binary published form of a commit's last event
// with the commit: version, number of events, the event, the state and
// the new plies (each already encoded).
func encodeCommit(event []byte, version int64, events int, state []byte, plies [][]byte) []byte {
	n := 1 + 20 + len(event) + len(state) + 4
	for _, p := range plies {
		n += len(p) + 2
	}
	b := make([]byte, 0, n)
	b = append(b, tagCommit)
	b = protowire.AppendVarint(b, uint64(version))
	b = protowire.AppendVarint(b, uint64(events))
	b = protowire.AppendBytes(b, event)
	b = protowire.AppendBytes(b, state)
	for _, p := range plies {
		b = protowire.AppendBytes(b, p)
	}
	return b
}

// parseCommit splits a binary published commit into its parts.
func parseCommit(b []byte) (version int64, events int, event, rest []byte, err error) {
	if len(b) == 0 || b[0] != tagCommit {
		return 0, 0, nil, nil, errMalformed
	}
	b = b[1:]
	v, n := protowire.ConsumeVarint(b)
	if n < 0 {
		return 0, 0, nil, nil, errMalformed
	}
	b = b[n:]
	k, n := protowire.ConsumeVarint(b)
	if n < 0 {
		return 0, 0, nil, nil, errMalformed
	}
	b = b[n:]
	event, n = protowire.ConsumeBytes(b)
	if n < 0 {
		return 0, 0, nil, nil, errMalformed
	}
	return int64(v), int(k), event, b[n:], nil
}

// decodeCommitBinary decodes the state and plies that follow a binary
// published commit's event.
func decodeCommitBinary(version int64, rest []byte) (*match.State, []match.PlyRecord, error) {
	s, n := protowire.ConsumeBytes(rest)
	if n < 0 {
		return nil, nil, fmt.Errorf("published state: %w", errMalformed)
	}
	rest = rest[n:]
	st := &match.State{}
	if err := decodeState(s, st); err != nil {
		return nil, nil, fmt.Errorf("published state: %w", err)
	}
	st.Version = version
	var plies []match.PlyRecord
	for len(rest) > 0 {
		p, n := protowire.ConsumeBytes(rest)
		if n < 0 {
			return nil, nil, fmt.Errorf("published ply: %w", errMalformed)
		}
		rest = rest[n:]
		var ply match.PlyRecord
		if err := decodePly(p, &ply); err != nil {
			return nil, nil, fmt.Errorf("published ply: %w", err)
		}
		plies = append(plies, ply)
	}
	return st, plies, nil
}
