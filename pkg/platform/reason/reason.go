// Package reason gives every refusal a client may show a stable,
// machine-readable reason: a google.rpc.ErrorInfo whose Reason is an
// UPPER_SNAKE name (AIP-193) and whose Metadata holds its parameters (the
// rule "Q3.4", the wall "e5h", the seconds left), so that each client
// renders the refusal in its player's language. The status message stays
// English, for logs and tools. A caller that names a language (the
// accept-language metadata, or a browser's Accept-Language header) also gets
// a google.rpc.LocalizedMessage (Localize).
//
// The messages are the catalogs in locales/<tag>.json (the format of
// package i18n), keyed by reason name; a reason with sub-cases (an illegal
// ply's rule) may also have "NAME.detail" keys, chosen by its "detail"
// parameter. The web client bundles the same files.
package reason

import (
	"embed"
	"maps"
	"slices"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/i18n"
)

// Domain is the ErrorInfo domain of every Tabuleiro reason.
const Domain = "tabuleiro.dev"

// DetailParam is the parameter whose value names a reason's sub-case: the
// message key "NAME.<detail>" is used when the catalog has it.
const DetailParam = "detail"

//go:embed locales/*.json
var locales embed.FS

// Catalog holds the reasons' messages in every language.
var Catalog = i18n.MustLoad(locales, "locales")

// Reason is one refusal reason and the parameters its metadata carries.
type Reason struct {
	Name   string   // UPPER_SNAKE, stable: clients key on it
	Params []string // metadata keys, always set when the reason is sent
	Doc    string   // when a service answers it, for docs/api.md
	// Detailed: the "detail" parameter names a sub-case whose own
	// parameters are in the metadata too (ILLEGAL_PLY's, from the engine).
	Detailed bool
}

// registry holds every reason defined below, in order.
var registry []Reason

func def(name, doc string, params ...string) string {
	registry = append(registry, Reason{Name: name, Params: params, Doc: doc})
	return name
}

// defDetailed is def for a reason whose detail sub-cases carry parameters
// of their own.
func defDetailed(name, doc string, params ...string) string {
	registry = append(registry, Reason{Name: name, Params: params, Doc: doc, Detailed: true})
	return name
}

// All returns every reason the services can answer, in definition order.
func All() []Reason { return slices.Clone(registry) }

// Defined reports whether name is a reason defined here.
func Defined(name string) bool {
	return slices.ContainsFunc(registry, func(r Reason) bool { return r.Name == name })
}

// Lookup returns the reason named name.
func Lookup(name string) (Reason, bool) {
	i := slices.IndexFunc(registry, func(r Reason) bool { return r.Name == name })
	if i < 0 {
		return Reason{}, false
	}
	return registry[i], true
}

// The reasons. Each one's parameters are listed after its documentation.
var (
	// Platform: every service.

	RateLimited = def("RATE_LIMITED", "too many calls, attempts or open streams in a short time; RetryInfo says when to try again", "retry_seconds")
	Unavailable = def("UNAVAILABLE", "a dependency of the service (its Redis, a rate limiter) did not answer; retry shortly")
	// TokenMissing .. TokenInvalid: Unauthenticated calls.
	TokenMissing     = def("TOKEN_MISSING", "the call needs a bearer token and has none (or a malformed authorization header)")
	TokenExpired     = def("TOKEN_EXPIRED", "the access token has expired: refresh it or sign in again")
	TokenInvalid     = def("TOKEN_INVALID", "the token is forged, malformed or unknown: sign in again")
	SessionRevoked   = def("SESSION_REVOKED", "every token of this sign-in was revoked (a refresh token was used twice): sign in again")
	ServiceOnly      = def("SERVICE_ONLY", "only a Tabuleiro service may call this method")
	MalformedRequest = def("MALFORMED_REQUEST", "the request message does not decode, is missing, or is more than one for a unary call")
	InvalidRequest   = def("INVALID_REQUEST", "a request field is missing, too long or out of range (the message says which and how)")
	NotFound         = def("NOT_FOUND", "no such room, invite code, player, game or record (or one the caller may not see)")
	PermissionDenied = def("PERMISSION_DENIED", "the caller may not see or do this")
	NotNow           = def("NOT_NOW", "valid, but the current state forbids it (a full room, a game already started); the message says which")
	LimitReached     = def("LIMIT_REACHED", "a per-player limit is reached (open rooms, live matches, wrong room passwords); wait, or close one first")
	Draining         = def("DRAINING", "the server instance is shutting down: call again, another instance answers")

	// Lobby.

	RoomPasswordNeeded = def("ROOM_PASSWORD_NEEDED", "the room is private and the call gave no password")
	RoomPasswordWrong  = def("ROOM_PASSWORD_WRONG", "the room password is wrong")
	AlreadyInMatch     = def("ALREADY_IN_MATCH", "the player is in a live match (or one being created) already; match_id names it", "match_id")
	TicketReplaced     = def("TICKET_REPLACED", "a newer ticket of the same player replaced this one, or it was paired elsewhere")
	TicketExpired      = def("TICKET_EXPIRED", "the matchmaking ticket expired: queue again")
	MatchNotCreated    = def("MATCH_NOT_CREATED", "a pairing was found but its match could not be created: queue again")
	// Accounts.
	UsernameTaken      = def("USERNAME_TAKEN", "another account has this username (compared after Unicode normalisation and case folding); username is that account's", "username")
	UsernameConfusable = def("USERNAME_CONFUSABLE", "the username looks like another account's (the same Unicode confusables skeleton); username is that account's", "username")
	AlreadyClaimed     = def("ALREADY_CLAIMED", "the caller's identity is an account already (an account is shown by its username: it has no display name to change)")
	CredentialsWrong   = def("CREDENTIALS_WRONG", "no account has this username, or the password is wrong (the answer does not say which)")
	SignedOut          = def("SIGNED_OUT", "this sign-in was signed out (SignOut, here or on another device): sign in again")
	PasswordWrong      = def("PASSWORD_WRONG", "the account's current password is wrong (ChangePassword)")
	// Passkeys (WebAuthn).
	PasskeysUnavailable     = def("PASSKEYS_UNAVAILABLE", "this server has no WebAuthn relying party configured: passkeys are off")
	PasskeyChallengeExpired = def("PASSKEY_CHALLENGE_EXPIRED", "the passkey challenge expired, or is not the caller's: begin again")
	PasskeyChallengeUsed    = def("PASSKEY_CHALLENGE_USED", "the passkey challenge was answered already (a replayed answer): begin again")
	PasskeyWrongSite        = def("PASSKEY_WRONG_SITE", "the passkey's answer comes from another origin, or is for another relying-party ID, than this server's")
	PasskeyUnknown          = def("PASSKEY_UNKNOWN", "no account here has this passkey (never registered here, or removed)")
	PasskeyRefused          = def("PASSKEY_REFUSED", "the authenticator's answer does not verify (signature, flags, or a signature counter gone backwards)")
	PasskeyExists           = def("PASSKEY_EXISTS", "this passkey is registered already")

	// Device sign-in (RFC 8628) and account data.

	AccountNeeded        = def("ACCOUNT_NEEDED", "only an account may do this (approve a device, delete itself): claim the guest first")
	UserCodeUnknown      = def("USER_CODE_UNKNOWN", "no device waits for this code: it is mistyped, expired or already answered")
	AuthorizationPending = def("AUTHORIZATION_PENDING", "the player has not approved the device sign-in yet: poll again after the interval")
	SlowDown             = def("SLOW_DOWN", "the device polled sooner than its interval; the interval is now retry_seconds", "retry_seconds")
	AccessDenied         = def("ACCESS_DENIED", "the player refused the device sign-in")
	ExpiredToken         = def("EXPIRED_TOKEN", "the device code expired, was spent or never was: start the device sign-in again")

	// Guest merge (MergeGuest) and rated play.

	GuestIsAccount    = def("GUEST_IS_ACCOUNT", "the player the proof names is no guest to merge: an account, a deleted player, or a guest merged into another account")
	GuestIsCaller     = def("GUEST_IS_CALLER", "the proof is the caller's own: a player cannot merge into itself")
	GuestInGame       = def("GUEST_IN_GAME", "the guest has a live match, or a rated game not yet in the ratings: merge once it is over")
	GuestProofInvalid = def("GUEST_PROOF_INVALID", "the guest's token is forged, expired, of a signed-out or revoked sign-in, or a refresh token already exchanged")
	// RatedNotYet: the fair-play rule for rated play (docs/api.md,
	// "Ratings"): a guest queues rated once it has finished
	// min_casual_games casual games or its identity is a day old.
	RatedNotYet = def("RATED_NOT_YET", "a guest queues rated once it has finished min_casual_games casual games or is a day old: it has finished casual_games, and is a day old in hours_left hours", "casual_games", "min_casual_games", "hours_left")

	// Match.

	MatchNotFound  = def("MATCH_NOT_FOUND", "no such match, or a private match the caller holds no seat in")
	UnknownVariant = def("UNKNOWN_VARIANT", "the game or variant is not one Tabuleiro serves")
	BadSetup       = def("BAD_SETUP", "the setup (Banqi's layout) or a position encoding is malformed or impossible")
	NotSeated      = def("NOT_SEATED", "the caller holds no seat in this match")
	NotYourTurn    = def("NOT_YOUR_TURN", "the ply carries the next ply's number, but that ply is the other seat's")
	StalePly       = def("STALE_PLY", "the ply's number is not the next ply's: current_ply_number is", "ply_number", "current_ply_number")
	GameOver       = def("GAME_OVER", "the game is over: no ply or action may follow")
	// IllegalPly's detail names the refusal ("ILLEGAL_PLY.wall_overlaps"
	// in the catalogs); the detail's own parameters (wall, square, from,
	// to, seat, piece...) are in the metadata too.
	IllegalPly       = defDetailed("ILLEGAL_PLY", "the ply breaks a rule: rule is its RULES.md section, detail the refusal's key; the detail's parameters follow", "ply", "rule", "detail")
	PlySyntax        = def("PLY_SYNTAX", "the ply's notation does not parse; offset is the byte where it goes wrong, game the game whose notation it is", "ply", "offset", "game")
	NoDraws          = def("NO_DRAWS", "this variant has no draw offers")
	NoDrawOffer      = def("NO_DRAW_OFFER", "no draw offer by the opponent is pending")
	DrawOfferPending = def("DRAW_OFFER_PENDING", "a draw offer is already pending")
	SeatElsewhere    = def("SEAT_ELSEWHERE", "the seat joined again on another stream, which now plays it")
	NotPrivate       = def("NOT_PRIVATE", "the match is not private")
	MatchChanged     = def("MATCH_CHANGED", "the match changed concurrently: retry")
	NotReplicated    = def("NOT_REPLICATED", "the change was not confirmed by a replica in time: retry with the same ply number")

	// Bot.

	BotBusy = def("BOT_BUSY", "the bot service is at its capacity: retry shortly")
	// ReviewLimit and ReviewUnavailable: game reviews (LobbyService.ReviewGame).
	ReviewLimit       = def("REVIEW_LIMIT", "the caller has asked for as many game reviews as an hour allows (a stored review does not count); RetryInfo says when to try again", "retry_seconds")
	ReviewUnavailable = def("REVIEW_UNAVAILABLE", "this server has no bot service to review games with")
)

// TermPrefix starts the catalog keys of terms: "term.<param>.<value>" is
// how a parameter's value is written in a language ("term.piece.cannon":
// "canhão"). Text shows a parameter through its term when the catalog has
// one, else as it is (squares, plies, numbers).
const TermPrefix = "term."

// New returns a status of code with the English message msg and an
// ErrorInfo of reason name with params as its metadata (none for an empty
// name).
func New(code codes.Code, name, msg string, params map[string]string) *status.Status {
	st := status.New(code, msg)
	if name == "" {
		return st
	}
	info := &errdetails.ErrorInfo{Reason: name, Domain: Domain, Metadata: params}
	if withInfo, err := st.WithDetails(info); err == nil {
		return withInfo
	}
	return st
}

// Error is New as an error.
func Error(code codes.Code, name, msg string, params map[string]string) error {
	return New(code, name, msg, params).Err()
}

// Of returns the ErrorInfo of st, if it carries one of this Domain.
func Of(st *status.Status) (*errdetails.ErrorInfo, bool) {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == Domain {
			return info, true
		}
	}
	return nil, false
}

// Text renders an ErrorInfo in p's language: the "NAME.detail" message
// when the catalog has one, else NAME's, with the metadata as parameters
// (each through its "term.<param>.<value>" message when there is one); ok
// is false when the catalog has neither.
func Text(p *i18n.Printer, info *errdetails.ErrorInfo) (string, bool) {
	params := i18n.Params{}
	for k, v := range info.GetMetadata() {
		if term := TermPrefix + k + "." + v; p.Has(term) {
			params[k] = p.T(term, nil)
		} else {
			params[k] = v
		}
	}
	if d := info.GetMetadata()[DetailParam]; d != "" && p.Has(info.GetReason()+"."+d) {
		return p.T(info.GetReason()+"."+d, params), true
	}
	if p.Has(info.GetReason()) {
		return p.T(info.GetReason(), params), true
	}
	return "", false
}

// Localize returns st with a LocalizedMessage in the language that best
// matches prefs (BCP 47 tags or Accept-Language values), when st carries an
// ErrorInfo with a message and prefs name a language; otherwise st.
func Localize(st *status.Status, prefs ...string) *status.Status {
	info, ok := Of(st)
	if !ok || len(slices.DeleteFunc(slices.Clone(prefs), func(s string) bool { return s == "" })) == 0 {
		return st
	}
	for _, d := range st.Details() {
		if _, ok := d.(*errdetails.LocalizedMessage); ok {
			return st
		}
	}
	p := Catalog.Printer(Catalog.Match(prefs...))
	text, ok := Text(p, info)
	if !ok {
		return st
	}
	if withMsg, err := st.WithDetails(&errdetails.LocalizedMessage{Locale: p.Lang(), Message: text}); err == nil {
		return withMsg
	}
	return st
}

// params returns the sorted metadata keys a reason's messages may use.
func params(r Reason) []string {
	set := map[string]bool{DetailParam: true}
	for _, p := range r.Params {
		set[p] = true
	}
	return slices.Sorted(maps.Keys(set))
}
