// Package rpc serves tabuleiro.lobby.v1 LobbyService over the lobby's
// domain packages: it converts between proto and domain values and maps
// errors to codes in one place (toStatus).
package rpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/netip"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/timestamppb"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/clientaddr"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/pkg/platform/rpcerr"
	"tabuleiro.dev/services/lobby/internal/accounts"
	"tabuleiro.dev/services/lobby/internal/devices"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/matchclient"
	"tabuleiro.dev/services/lobby/internal/matchmaking"
	"tabuleiro.dev/services/lobby/internal/passkeys"
	"tabuleiro.dev/services/lobby/internal/passwd"
	"tabuleiro.dev/services/lobby/internal/rooms"
	"tabuleiro.dev/services/lobby/internal/sessions"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
)

// Store is the lobby's record of players, ratings and finished games
// (sqlstore.Store, on PostgreSQL or SQLite).
type Store interface {
	SavePlayer(ctx context.Context, p lobby.Player) error
	Player(ctx context.Context, id string) (lobby.Player, error)
	Rating(ctx context.Context, playerID string, game engine.Game, variant string) (sqlstore.Rating, error)
	History(ctx context.Context, playerID, viewer string, game engine.Game, pageSize int, pageToken string) (sqlstore.Page, error)
	Game(ctx context.Context, gameID string) (sqlstore.Record, error)
	Review(ctx context.Context, gameID, version string) (string, bool, error)
	SaveReview(ctx context.Context, gameID, version, review string) error
	Stats(ctx context.Context, playerID string) (sqlstore.Stats, error)
	CreateAccount(ctx context.Context, a sqlstore.Account) error
	AccountByKey(ctx context.Context, key string) (sqlstore.Account, error)
	AccountByPlayer(ctx context.Context, playerID string) (sqlstore.Account, error)
	SetPassword(ctx context.Context, playerID, hash string) error
	AddPasskey(ctx context.Context, p sqlstore.Passkey) error
	Passkeys(ctx context.Context, playerID string) ([]sqlstore.Passkey, error)
	Passkey(ctx context.Context, id string) (sqlstore.Passkey, error)
	UsePasskey(ctx context.Context, id, credential string) error
	RemovePasskey(ctx context.Context, playerID, id string) error
	DeleteAccount(ctx context.Context, playerID string) error
	MergeGuest(ctx context.Context, guestID, accountID string) (sqlstore.Merge, error)
	MergedInto(ctx context.Context, playerID string) (string, error)
	Newcomer(ctx context.Context, playerID string) (sqlstore.Newcomer, bool, error)
	Profile(ctx context.Context, key string, recent int) (sqlstore.Profile, error)
	Usernames(ctx context.Context, ids []string) (map[string]string, error)
}

// Deps are what the server serves from.
type Deps struct {
	Rooms      *rooms.Store
	Matchmaker *matchmaking.Matchmaker
	Store      Store
	// Live lists live matches: the match service's ListMatches (ply
	// counts and spectators included). Nil lists none.
	Live     LiveLister
	Matches  lobby.MatchCreator
	Issuer   *auth.Issuer
	Verifier *auth.Verifier
	Lookup   lobby.VariantLookup
	TokenTTL time.Duration // default 24 h
	// Sessions keeps the refresh token families (rotation, reuse
	// detection); RefreshTTL is a refresh token's life (default 30 days),
	// RefreshRetry the window in which the refresh token just exchanged
	// may be presented again without counting as reuse (default 10 s; a
	// response lost on the way).
	Sessions     *sessions.Families
	RefreshTTL   time.Duration
	RefreshRetry time.Duration
	// Now is the clock of refresh rotation (default time.Now).
	Now func() time.Time
	// RoomPoll is how often WatchRoom re-reads its room besides on its
	// change events (a fallback for a missed event), default 5 s.
	RoomPoll time.Duration
	// Limiter applies Limits per client address across instances; nil
	// limits nothing.
	Limiter *ratelimit.Limiter
	Limits  Limits
	// Reviewer is the bot service that reviews finished games (ReviewGame);
	// nil: reviews are unavailable. ReviewNodes is the expert's budget per
	// ply (0: the bot service's default).
	Reviewer    Reviewer
	ReviewNodes int64
	// Streams caps each player's open lobby streams (FindMatch and
	// WatchRoom together); nil: no cap.
	Streams *ratelimit.Streams
	// MaxBotMatches caps a player's live bot matches when several live
	// matches per player are allowed (the one-process mode); 0: no cap.
	// With one live match per player it is 1 anyway.
	MaxBotMatches int
	// BotStarts lets one PlayBot per player run at a time (Max 1); nil:
	// no serialisation.
	BotStarts *ratelimit.Streams
	// ExemptLoopback exempts callers on a loopback address from the
	// per-address rates: the one-process mode's own terminal client and
	// replays (players from elsewhere are limited as usual).
	ExemptLoopback bool
	// Exempt are client addresses (a load generator's) the per-address
	// rates do not apply to.
	Exempt []netip.Prefix
	// TrustedProxies are the proxies (the edge) whose x-forwarded-for
	// names the client address; empty: the peer is the client.
	TrustedProxies []netip.Prefix
	// Argon2 are the parameters of new account password hashes (default
	// passwd.Default()).
	Argon2 passwd.Params
	// Guesses limits wrong passwords per account and client address; nil
	// limits none.
	Guesses *accounts.Guesses
	// Passkeys runs the WebAuthn ceremonies of the relying party; nil:
	// passkeys are off (FAILED_PRECONDITION, PASSKEYS_UNAVAILABLE).
	Passkeys *passkeys.Ceremonies
	// Devices keeps the device sign-ins (RFC 8628: StartDeviceSignIn,
	// ApproveDeviceSignIn, PollDeviceSignIn); nil: the RPCs are
	// unimplemented. DeviceURL is the approval page a device shows (the
	// web client's #/device); empty: the page of the address the device
	// called (its :authority, https when the call came over TLS or a
	// trusted proxy says so).
	Devices   *devices.Store
	DeviceURL string
}

// Limits are the per-client-address rates of the public or cheap-to-call
// RPCs that create things or probe secrets.
type Limits struct {
	SignIn       ratelimit.Rule // SignInGuest: each makes a permanent player
	Password     ratelimit.Rule // SignIn: each costs an argon2id hash
	Refresh      ratelimit.Rule // RefreshToken
	CreateRoom   ratelimit.Rule // CreateRoom (the per-host cap of open rooms aside)
	InviteLookup ratelimit.Rule // JoinRoom by invite code and GetInvite: guessing codes
	PlayBot      ratelimit.Rule // PlayBot: each starts a bot search
	// Review is per player, not per address: ReviewGame calls that run a
	// review (a stored one is free).
	Review ratelimit.Rule
	// Device: StartDeviceSignIn and ApproveDeviceSignIn together (each
	// approval is a guess at a user code).
	Device ratelimit.Rule
	// Profile: GetProfile, a public read.
	Profile ratelimit.Rule
}

// DefaultLimits are the production rates per client address.
func DefaultLimits() Limits {
	return Limits{
		SignIn:       ratelimit.Rule{What: "guest sign-ins", Rate: 30, Burst: 10, Period: time.Hour},
		Password:     ratelimit.Rule{What: "password sign-ins", Rate: 60, Burst: 20, Period: time.Hour},
		Refresh:      ratelimit.Rule{What: "token refreshes", Rate: 60, Burst: 20, Period: time.Minute},
		CreateRoom:   ratelimit.Rule{What: "rooms created", Rate: 60, Burst: 10, Period: time.Hour},
		InviteLookup: ratelimit.Rule{What: "invite code lookups", Rate: 30, Burst: 10, Period: time.Minute},
		PlayBot:      ratelimit.Rule{What: "bot games started", Rate: 120, Burst: 20, Period: time.Hour},
		Review:       ratelimit.Rule{What: "game reviews", Rate: 20, Burst: 5, Period: time.Hour},
		Device:       ratelimit.Rule{What: "device sign-in codes", Rate: 30, Burst: 10, Period: time.Hour},
		Profile:      ratelimit.Rule{What: "profile lookups", Rate: 60, Burst: 20, Period: time.Minute},
	}
}

// addr is the caller's client address, the key of per-address limits
// (see clientaddr).
func (s *Server) addr(ctx context.Context) string {
	return clientaddr.FromContext(ctx, s.d.TrustedProxies).Key
}

// limit takes one request of rule for the caller's client address.
func (s *Server) limit(ctx context.Context, rule ratelimit.Rule, name string) error {
	c := clientaddr.FromContext(ctx, s.d.TrustedProxies)
	if s.d.ExemptLoopback && c.Loopback || exempt(s.d.Exempt, c.Key) {
		return nil
	}
	return s.d.Limiter.Allow(ctx, rule, name, c.Key)
}

// exempt reports whether the client of limit key (an IPv4 address or an
// IPv6 /64) is in one of the prefixes.
func exempt(prefixes []netip.Prefix, key string) bool {
	if len(prefixes) == 0 {
		return false
	}
	a, err := netip.ParseAddr(key)
	if err != nil {
		p, perr := netip.ParsePrefix(key)
		if perr != nil {
			return false
		}
		a = p.Addr()
	}
	for _, p := range prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// LiveLister lists the match service's live matches, all of them
// (playerID "") or one player's; only those of matchIDs when given.
type LiveLister interface {
	ListMatches(ctx context.Context, playerID string, matchIDs ...string) ([]*matchv1.MatchSummary, error)
}

// Server implements lobbyv1.LobbyServiceServer.
type Server struct {
	lobbyv1.UnimplementedLobbyServiceServer
	d       Deps
	reviews reviewVersion
}

var _ lobbyv1.LobbyServiceServer = (*Server)(nil)

// New returns a server.
func New(d Deps) *Server {
	if d.TokenTTL == 0 {
		d.TokenTTL = 24 * time.Hour
	}
	if d.RefreshTTL == 0 {
		d.RefreshTTL = 30 * 24 * time.Hour
	}
	if d.RefreshRetry == 0 {
		d.RefreshRetry = 10 * time.Second
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.RoomPoll == 0 {
		d.RoomPoll = 5 * time.Second
	}
	if d.Argon2 == (passwd.Params{}) {
		d.Argon2 = passwd.Default()
	}
	return &Server{d: d}
}

// PublicMethods are the RPCs that need no token (auth.Policy.Public).
var PublicMethods = []string{
	lobbyv1.LobbyService_SignInGuest_FullMethodName,
	lobbyv1.LobbyService_SignIn_FullMethodName,
	lobbyv1.LobbyService_BeginPasskeySignIn_FullMethodName,
	lobbyv1.LobbyService_FinishPasskeySignIn_FullMethodName,
	lobbyv1.LobbyService_RefreshToken_FullMethodName,
	lobbyv1.LobbyService_ListVariants_FullMethodName,
	lobbyv1.LobbyService_GetInvite_FullMethodName,
	lobbyv1.LobbyService_StartDeviceSignIn_FullMethodName,
	lobbyv1.LobbyService_PollDeviceSignIn_FullMethodName,
	lobbyv1.LobbyService_GetProfile_FullMethodName,
}

func caller(ctx context.Context) (lobby.Player, error) {
	p, ok := auth.FromContext(ctx)
	if !ok || p.PlayerID() == "" {
		return lobby.Player{}, lobby.ErrUnauthenticated
	}
	return lobby.Player{ID: p.PlayerID(), DisplayName: p.DisplayName}, nil
}

// caller returns the calling player, refusing a token whose sign-in was
// signed out or revoked: the lobby takes no bearer token of an ended
// sign-in, however long it has to live.
func (s *Server) caller(ctx context.Context) (lobby.Player, error) {
	p, err := caller(ctx)
	if err != nil {
		return p, err
	}
	pr, _ := auth.FromContext(ctx)
	if err := s.live(ctx, pr.Family); err != nil {
		return lobby.Player{}, err
	}
	return p, nil
}

// live refuses a sign-in (refresh family) that was signed out or revoked
// with UNAUTHENTICATED and the reason; "" (a token from before refresh
// tokens) is live.
func (s *Server) live(ctx context.Context, family string) error {
	if family == "" || s.d.Sessions == nil {
		return nil
	}
	switch err := s.d.Sessions.Check(ctx, family); {
	case errors.Is(err, sessions.ErrSignedOut):
		return reason.Error(codes.Unauthenticated, reason.SignedOut, "this sign-in was signed out; sign in again", nil)
	case errors.Is(err, sessions.ErrRevoked):
		return reason.Error(codes.Unauthenticated, reason.SessionRevoked, "every token of this sign-in is revoked (a refresh token was used twice); sign in again", nil)
	case err != nil:
		return err
	}
	return nil
}

// SignInGuest creates a guest and returns its token.
func (s *Server) SignInGuest(ctx context.Context, req *lobbyv1.SignInGuestRequest) (*lobbyv1.SignInGuestResponse, error) {
	if err := lobby.ValidateDisplayName(req.GetDisplayName()); err != nil {
		return nil, toStatus(err)
	}
	if err := s.limit(ctx, s.d.Limits.SignIn, "signin"); err != nil {
		return nil, err
	}
	p := lobby.Player{ID: lobby.NewID("p_"), DisplayName: req.GetDisplayName(), Addr: s.addr(ctx)}
	if err := s.d.Store.SavePlayer(ctx, p); err != nil {
		return nil, toStatus(err)
	}
	family := lobby.NewID("f_")
	if err := s.d.Sessions.StartDevice(ctx, family, p.ID, device(ctx, ""), s.d.Now(), s.d.RefreshTTL); err != nil {
		return nil, toStatus(err)
	}
	pair, err := s.issuePair(p.ID, p.DisplayName, true, family, 1)
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.SignInGuestResponse{PlayerId: p.ID, Token: pair.token, ExpiresAt: timestamppb.New(pair.exp),
		RefreshToken: pair.refresh, RefreshExpiresAt: timestamppb.New(pair.refreshExp)}, nil
}

// tokenPair is a bearer token and the refresh token that comes with it.
type tokenPair struct {
	token, refresh  string
	exp, refreshExp time.Time
}

// issuePair issues a player's bearer token of family and the family's
// refresh token of generation gen.
func (s *Server) issuePair(playerID, name string, guest bool, family string, gen int64) (tokenPair, error) {
	var p tokenPair
	var err error
	if p.token, p.exp, err = s.d.Issuer.IssuePlayerOf(family, playerID, name, guest, s.d.TokenTTL); err != nil {
		return p, err
	}
	p.refresh, p.refreshExp, err = s.d.Issuer.IssueRefresh(playerID, family, gen, s.d.RefreshTTL)
	return p, err
}

// unauthenticated refuses a token: expired ones say so (TOKEN_EXPIRED),
// revoked sign-ins too (SESSION_REVOKED); any other is TOKEN_INVALID.
func unauthenticated(why string) error {
	name := reason.TokenInvalid
	switch {
	case strings.Contains(why, "expired"):
		name = reason.TokenExpired
	case strings.Contains(why, "revoked"):
		name = reason.SessionRevoked
	}
	return reason.Error(codes.Unauthenticated, name, why, nil)
}

// RefreshToken exchanges a refresh token for a new pair, rotating it (see
// package sessions); a bearer token from before refresh tokens is
// exchanged once while it is valid.
func (s *Server) RefreshToken(ctx context.Context, req *lobbyv1.RefreshTokenRequest) (*lobbyv1.RefreshTokenResponse, error) {
	if req.GetRefreshToken() == "" && req.GetToken() == "" {
		return nil, toStatus(lobby.Invalid("refresh_token", "is required"))
	}
	if err := s.limit(ctx, s.d.Limits.Refresh, "refresh"); err != nil {
		return nil, err
	}
	var playerID, family string
	var gen int64
	if req.GetRefreshToken() != "" {
		r, err := s.d.Verifier.VerifyRefresh(req.GetRefreshToken())
		switch {
		case errors.Is(err, auth.ErrExpiredToken):
			return nil, unauthenticated("refresh token expired; sign in again")
		case err != nil:
			return nil, unauthenticated("invalid refresh token")
		}
		gen, err = s.d.Sessions.Rotate(ctx, r.Family, r.PlayerID, r.Generation, s.d.Now(), s.d.RefreshRetry, s.d.RefreshTTL)
		switch {
		case errors.Is(err, sessions.ErrReused):
			return nil, unauthenticated("refresh token already used: every token of this sign-in is revoked (a copy may have leaked); sign in again")
		case errors.Is(err, sessions.ErrRevoked):
			return nil, unauthenticated("refresh token revoked (an earlier one was used twice); sign in again")
		case errors.Is(err, sessions.ErrSignedOut):
			return nil, reason.Error(codes.Unauthenticated, reason.SignedOut, "this sign-in was signed out; sign in again", nil)
		case errors.Is(err, sessions.ErrUnknown):
			return nil, unauthenticated("refresh token expired or unknown; sign in again")
		case err != nil:
			return nil, toStatus(err)
		}
		playerID, family = r.PlayerID, r.Family
	} else {
		// A client from before refresh tokens: its bearer token, still
		// valid, once.
		p, err := s.d.Verifier.Verify(req.GetToken())
		switch {
		case errors.Is(err, auth.ErrExpiredToken):
			return nil, unauthenticated("token expired; sign in again")
		case err != nil || p.PlayerID() == "":
			return nil, unauthenticated("invalid token")
		case p.Family != "":
			return nil, unauthenticated("this is a bearer token; RefreshToken takes the refresh_token that came with it")
		}
		if err := s.d.Sessions.ClaimLegacy(ctx, req.GetToken(), p.ExpiresAt, s.d.Now()); errors.Is(err, sessions.ErrClaimed) {
			return nil, unauthenticated("token already exchanged for a refresh token; use that one")
		} else if err != nil {
			return nil, toStatus(err)
		}
		playerID, family, gen = p.PlayerID(), lobby.NewID("f_"), 1
		if err := s.d.Sessions.StartDevice(ctx, family, playerID, device(ctx, ""), s.d.Now(), s.d.RefreshTTL); err != nil {
			return nil, toStatus(err)
		}
	}
	pl, err := s.d.Store.Player(ctx, playerID)
	if errors.Is(err, lobby.ErrNotFound) {
		return nil, unauthenticated("player unknown here; sign in again")
	} else if err != nil {
		return nil, toStatus(err)
	}
	pair, err := s.issuePair(playerID, shownName(pl.DisplayName, pl.Username), pl.Username == "", family, gen)
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.RefreshTokenResponse{Token: pair.token, ExpiresAt: timestamppb.New(pair.exp),
		RefreshToken: pair.refresh, RefreshExpiresAt: timestamppb.New(pair.refreshExp)}, nil
}

// ListVariants lists the variants of the games registry.
func (s *Server) ListVariants(_ context.Context, req *lobbyv1.ListVariantsRequest) (*lobbyv1.ListVariantsResponse, error) {
	if _, err := gameFromProto(req.GetGame(), false); err != nil {
		return nil, toStatus(err)
	}
	res := &lobbyv1.ListVariantsResponse{}
	for _, g := range games.List() {
		if req.GetGame() != gamev1.Game_GAME_UNSPECIFIED && matchclient.GameToProto(string(g)) != req.GetGame() {
			continue
		}
		vs, err := games.Variants(g)
		if err != nil {
			return nil, toStatus(err)
		}
		for _, v := range vs {
			var ratings []*gamev1.BotRating
			for _, r := range lobby.BotRatings(v.Game, v.ID) {
				ratings = append(ratings, &gamev1.BotRating{Level: gamev1.BotLevel(r.Level),
					Rating: int32(r.Rating), RatingLow: int32(r.Low), RatingHigh: int32(r.High)})
			}
			res.Variants = append(res.Variants, &gamev1.Variant{
				Game: matchclient.GameToProto(string(v.Game)), Id: v.ID, Name: v.Name, Players: int32(v.Players),
				Rated: v.Rated, Draws: v.Draws,
				DefaultTimeControl: matchclient.ClockToProto(lobby.TimeControl{BaseMS: v.DefaultBaseMS, IncrementMS: v.DefaultIncrementMS}),
				BotRatings:         ratings,
			})
		}
	}
	return res, nil
}

func gameFromProto(g gamev1.Game, required bool) (engine.Game, error) {
	switch g {
	case gamev1.Game_GAME_QUORIDOR:
		return engine.Quoridor, nil
	case gamev1.Game_GAME_CORNERS:
		return engine.Corners, nil
	case gamev1.Game_GAME_BANQI:
		return engine.Banqi, nil
	case gamev1.Game_GAME_UNSPECIFIED:
		if !required {
			return "", nil
		}
	}
	return "", lobby.Invalid("game", "unknown or unspecified game %v", g)
}

// variantID resolves a request's variant: empty is the game's default
// variant, so that rooms, queues and matches always carry the real id.
// Unknown ids are left for the domain to reject with its message.
func (s *Server) variantID(g engine.Game, variant string) string {
	if variant != "" {
		return variant
	}
	if v, err := s.d.Lookup(g, ""); err == nil {
		return v.ID
	}
	return variant
}

// clockFromProto maps a request's clock: absent is "no clock" (the zero
// TimeControl; FindMatch then takes the variant's default), a present one
// must be in range (game.v1 TimeControl) — {0, 0} included.
// checkPageSize refuses a page size outside 0 (the default) to 100.
func checkPageSize(n int32) error {
	if n < 0 || n > 100 {
		return lobby.Invalid("page_size", "must be 1 to 100, or 0 for the default; got %d", n)
	}
	return nil
}

// checkFilter checks a list's game and variant filter: a variant needs a
// game and must exist.
func (s *Server) checkFilter(g engine.Game, variant string) error {
	if variant == "" {
		return nil
	}
	if g == "" {
		return lobby.Invalid("variant", "a variant filter needs a game")
	}
	if _, err := s.d.Lookup(g, variant); err != nil {
		return lobby.Invalid("variant", "unknown variant %q of %s", lobby.Clip(variant), g)
	}
	return nil
}

func clockFromProto(tc *gamev1.TimeControl) (lobby.TimeControl, error) {
	if tc == nil {
		return lobby.TimeControl{}, nil
	}
	c := lobby.TimeControl{BaseMS: tc.GetBaseMs(), IncrementMS: tc.GetIncrementMs()}
	if c.None() {
		return c, lobby.Invalid("time_control.base_ms", "must be %d to %d, got 0 (leave time_control out for no clock)",
			lobby.MinBaseMS, lobby.MaxBaseMS)
	}
	return c, c.Validate()
}

func seatFromProto(s gamev1.Seat) (engine.Seat, error) {
	switch s {
	case gamev1.Seat_SEAT_UNSPECIFIED:
		return engine.NoSeat, nil
	case gamev1.Seat_SEAT_FIRST:
		return engine.First, nil
	case gamev1.Seat_SEAT_SECOND:
		return engine.Second, nil
	}
	return engine.NoSeat, lobby.Invalid("seat", "unknown seat %v", s)
}

func ts(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

func rounded(r float64) *int32 {
	if r == 0 {
		return nil
	}
	v := int32(math.Round(r))
	return &v
}

func participant(seat engine.Seat, p lobby.Participant) *gamev1.Participant {
	name := p.DisplayName
	if p.Bot != lobby.NoBot && name == "" {
		name = "Bot (" + p.Bot.String() + ")"
	}
	return &gamev1.Participant{Seat: gamev1.Seat(seat), PlayerId: p.PlayerID, DisplayName: name,
		BotLevel: gamev1.BotLevel(p.Bot), Rating: rounded(p.Rating), Username: p.Username}
}

// ratingOf returns a player's rating in a rated variant, zero otherwise.
// With PostgreSQL unreachable the rating is unknown and zero too: the
// player queues and pairs at the initial rating, and matchmaking, rooms
// and play go on (the game's result, and the ratings it changes, are
// recorded from the outbox once PostgreSQL is back, from the ratings
// stored there).
func (s *Server) ratingOf(ctx context.Context, playerID string, g engine.Game, variant string) (float64, error) {
	v, err := s.d.Lookup(g, variant)
	if err != nil || !v.Rated {
		return 0, nil //nolint:nilerr // unknown variants are rejected by the domain with a clear error
	}
	r, err := s.d.Store.Rating(ctx, playerID, g, variant)
	if rpcerr.Unreachable(err) {
		slog.WarnContext(ctx, "rating unknown: PostgreSQL unreachable; pairing at the initial rating", "player_id", playerID, "err", err)
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return r.Rating.Rating, nil
}

// SetDisplayName renames the caller and returns a token with the new name,
// of the same sign-in and expiry as the caller's (renaming must not keep a
// bearer token alive); a sign-in whose refresh tokens were revoked cannot
// rename.
func (s *Server) SetDisplayName(ctx context.Context, req *lobbyv1.SetDisplayNameRequest) (*lobbyv1.SetDisplayNameResponse, error) {
	pr, ok := auth.FromContext(ctx)
	if ok && pr.IsService() {
		return nil, toStatus(fmt.Errorf("a service credential has no display name: %w", lobby.ErrForbidden))
	}
	if !ok || pr.PlayerID() == "" {
		return nil, toStatus(lobby.ErrUnauthenticated)
	}
	if err := lobby.ValidateDisplayName(req.GetDisplayName()); err != nil {
		return nil, toStatus(err)
	}
	if err := s.live(ctx, pr.Family); err != nil {
		return nil, toStatus(err)
	}
	if !pr.Guest {
		// An account is shown by its username (docs/accounts.md): a
		// display name is a guest's.
		return nil, toStatus(fmt.Errorf("an account is shown by its username and has no display name to change: %w", lobby.ErrAlreadyClaimed))
	}
	if err := s.d.Store.SavePlayer(ctx, lobby.Player{ID: pr.PlayerID(), DisplayName: req.GetDisplayName()}); err != nil {
		return nil, toStatus(err)
	}
	tok, exp, err := s.d.Issuer.Rename(pr, req.GetDisplayName())
	if errors.Is(err, auth.ErrExpiredToken) {
		return nil, toStatus(lobby.ErrUnauthenticated)
	}
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.SetDisplayNameResponse{Token: tok, ExpiresAt: timestamppb.New(exp)}, nil
}
