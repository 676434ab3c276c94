package match

import (
	"context"
	"slices"
	"time"

	"tabuleiro.dev/pkg/engine"
)

// Store keeps matches. The Redis implementation is internal/redisstore.
type Store interface {
	Presence
	Probes
	// Create stores a new match unless requestID already named one; it
	// returns the id of the match stored under requestID.
	Create(ctx context.Context, requestID string, st *State, deadline int64) (string, error)
	// Load returns a match with its version, the number of plies stored in
	// all, and in st.Plies the stored plies from number have on (all when
	// have is 0): a cache that holds the first have plies checks that its
	// last one is the stored one (the store did not lose writes and take
	// other plies since) and appends the rest. ErrNotFound.
	Load(ctx context.Context, id string, have int) (st *State, total int, err error)
	// Commit writes c atomically if the stored version is still
	// c.PrevVersion; otherwise nothing changes and it returns a *Conflict
	// (which is ErrVersionConflict) carrying what is stored, with the
	// plies after c.Have, so the committer catches up without reading again.
	// Its other errors name the match.
	Commit(ctx context.Context, c Commit) error
	// PlyStored reports whether the store holds ply (its number, event
	// seq and notation) of match id, returning once that is on the
	// replicas it is configured to wait for (MATCH_REDIS_WAIT_REPLICAS;
	// at once when it waits for none) or ErrNotReplicated: a duplicate ply
	// is acknowledged again only then. False: the store lost it (a
	// failover took a write no replica had) and the ply is played again.
	PlyStored(ctx context.Context, id string, ply PlyRecord) (bool, error)
	// Events returns up to limit events of match id with seq > after, in
	// order; the first is after+1 unless those were trimmed.
	Events(ctx context.Context, id string, after int64, limit int) ([]Event, error)
	// The deadlines and leases are split into SweepGroups groups (match
	// id's in SweepGroup(id)), each swept by one instance at a time
	// (Sweeper).
	SweepGroups() int
	SweepGroup(id string) int
	// Due returns up to limit match ids of groups (nil: every group)
	// whose deadline is at or before now, up to limit leases (Presence)
	// that expired at or before now, and the earliest deadline or lease
	// expiry after now (0: none), read together: the sweeper's poll is
	// one round trip.
	Due(ctx context.Context, groups []int, now int64, limit int) (ids []string, lapsed []Lease, next int64, err error)
	// WakeSweeper tells the instance that sweeps group, wherever it runs,
	// that a deadline at due (unix ms) was written. SweeperWakes returns
	// once the wake-ups sent after it reach wake (or with the error that
	// stops them for now), and calls wake with each one's group (-1: any)
	// and due, from another goroutine, until ctx ends. A wake-up may be
	// lost (the sweeper polls anyway, less often).
	WakeSweeper(ctx context.Context, group int, due int64) error
	SweeperWakes(ctx context.Context, wake func(group int, due int64)) error
	// Claim moves the deadline of id to until if it is due at now; it
	// reports whether this caller won the claim.
	Claim(ctx context.Context, id string, now, until int64) (bool, error)
	// Live returns the live-match index's summaries, most recently active
	// first (only playerID's matches when set), dropping entries of
	// matches untouched for longer than their keys live (at now). With
	// ids, it reads only those matches (each in its own shard) and keeps
	// the live ones, where playerID holds a seat when set.
	Live(ctx context.Context, playerID string, limit int, now int64, ids ...string) ([]Summary, error)
	// Reschedule sets id's deadline (0 removes it) if its version is still
	// version.
	Reschedule(ctx context.Context, id string, version, deadline int64) error
	// MarkAlive records that an instance served at now (unix ms); it
	// returns the mark it replaced (0 for none), the last moment any
	// instance was known alive before this one.
	MarkAlive(ctx context.Context, now int64) (prev int64, err error)
	// Sweeper makes the instance named token the one that sweeps its
	// share of the groups for ttl: it renews the groups token holds and
	// takes free ones up to an even share among the instances that asked
	// within ttl (giving up those above it), and returns the groups token
	// holds now. The groups of an instance that stops asking lapse after
	// ttl and go to the others.
	Sweeper(ctx context.Context, token string, ttl time.Duration) (groups []int, err error)
	// ReleaseSweeper gives up the groups token holds.
	ReleaseSweeper(ctx context.Context, token string) error
}

// Commit is one atomic write of a match.
type Commit struct {
	PrevVersion int64
	State       *State // the new state; its Version is PrevVersion+1
	Plies       []PlyRecord
	Events      []Event
	// Notices are published after Events to the match's followers, and
	// neither stored nor numbered (Seq 0).
	Notices  []Event
	Deadline int64   // 0: none
	Record   *Record // set when the match ended: goes to the outbox
	// Lease, when set, is added with expiry LeaseUntil in the same step
	// (a join), so a connected seat always has a lease.
	Lease      *Lease
	LeaseUntil int64
	// At is the commit's time (unix ms): the match's last activity in
	// the live-match index.
	At int64
	// Have is the number of plies the committer held before this commit
	// (the stored plies a Conflict leaves out).
	Have int
}

// Conflict is the error of a Commit that lost to another writer: State is
// the stored state with its plies as Load(ctx, id, Commit.Have) returns
// them, and Total the number of plies stored. errors.Is(c,
// ErrVersionConflict) holds.
type Conflict struct {
	State *State
	Total int
}

func (c *Conflict) Error() string { return ErrVersionConflict.Error() }

// Is reports whether target is ErrVersionConflict.
func (c *Conflict) Is(target error) bool { return target == ErrVersionConflict }

// Published is a commit as the hub received it from whichever instance
// made it: the match's new version, the seq of its last event and its
// number of events, and Decode for its state (Version set, no plies) and
// the plies it added, decoded only when wanted.
type Published struct {
	ID      string
	Version int64
	Seq     int64
	Events  int
	Decode  func() (*State, []PlyRecord, error)
}

// Hub delivers the live events of matches to this instance's subscribers.
type Hub interface {
	// Subscribe returns a channel of match id's events published after it
	// returns (on a Redis Cluster, events published shortly before may
	// arrive too, older than the subscriber holds: it drops them). The
	// channel is closed when the subscriber falls behind
	// (then it catches up from the Store) or when cancel is called. An
	// event is shared by the match's subscribers: read only.
	Subscribe(ctx context.Context, id string) (events <-chan *Event, cancel func(), err error)
}

// Rules builds positions: games.Lookup and games.New.
type Rules interface {
	Lookup(g engine.Game, variant string) (engine.Variant, error)
	New(g engine.Game, variant, setup string) (engine.Position, error)
}

// Bot chooses a bot seat's ply.
type Bot interface {
	SelectPly(ctx context.Context, req BotRequest) (BotAnswer, error)
}

// BotRequest is what a bot seat is asked: its own view, nothing more.
type BotRequest struct {
	MatchID string
	// PlayerID is whose game asks, for the bot's fair share of its search
	// slots: the player facing the bot, or the match id where none does.
	PlayerID string
	Game     engine.Game
	Variant  string
	View     engine.View
	Seat     engine.Seat
	Level    int
	BudgetMS int64
	Seed     uint64
}

// BotAnswer is a bot's ply for the position after PlyNumber-1 plies.
type BotAnswer struct {
	Notation  string
	PlyNumber int
}

// Record is a finished game as it goes to the outbox and to Postgres.
type Record struct {
	ID        string         `json:"id"`
	Game      engine.Game    `json:"g"`
	Variant   string         `json:"v"`
	Rated     bool           `json:"rt"`
	Seats     []Participant  `json:"seats"`
	Clock     *TimeControl   `json:"tc,omitempty"`
	Plies     []PlyRecord    `json:"plies"`
	Outcome   engine.Outcome `json:"o"`
	StartedAt int64          `json:"sa"`
	EndedAt   int64          `json:"ea"`
	Layout    string         `json:"lay,omitempty"`
	Seed      string         `json:"seed,omitempty"`
	Private   bool           `json:"pv,omitempty"`
	// Invited are a private game's invited spectators, who may read its
	// record as they could watch it.
	Invited []string `json:"inv,omitempty"`
}

// RecordOf returns the record of a finished match.
func RecordOf(st *State) *Record {
	r := &Record{
		ID: st.ID, Game: st.Game, Variant: st.Variant, Rated: st.Rated,
		Seats: make([]Participant, st.Players), Clock: st.Clock,
		Plies: st.Plies, Outcome: st.Outcome, StartedAt: st.CreatedAt, EndedAt: st.EndedAt,
		Layout: st.Layout, Seed: st.Seed, Private: st.Private, Invited: slices.Clone(st.Invited),
	}
	if r.Plies == nil {
		r.Plies = []PlyRecord{}
	}
	for i := range st.Players {
		r.Seats[i] = st.Seats[i].Participant
	}
	return r
}
