package lobbyserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/clientaddr"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/grpcserve/grpcservetest"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/passwd"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// accountsLobby serves a lobby on PostgreSQL over every protocol
// (grpcserve.Run: gRPC, Connect, gRPC-Web) on a loopback listener whose
// callers name their address in x-forwarded-for (loopback is a trusted
// proxy), with the per-address rates off and the wrong-password limits
// on. It returns a gRPC client, a Connect caller and the database.
type accountsLobby struct {
	t    *testing.T
	grpc lobbyv1.LobbyServiceClient
	hc   *http.Client
	base string
	exec func(q string, args ...any)
	// rdb and prefix are the lobby's Redis and key prefix.
	rdb    redis.UniversalClient
	prefix string
	// key signs the lobby's tokens.
	key []byte
}

// testSite is the relying party of accountsLobby's passkeys.
var testSite = PasskeyConfig{RPID: "tabuleiro.test", Origins: []string{"https://tabuleiro.test"}}

// newAccountsLobby serves the lobby with passkeys for testSite, or for
// the relying party given (an empty one: passkeys off).
func newAccountsLobby(t *testing.T, site ...PasskeyConfig) *accountsLobby {
	t.Helper()
	return newConfiguredLobby(t, nil, site...)
}

// newConfiguredLobby is newAccountsLobby with opt, if any, changing the
// configuration first.
func newConfiguredLobby(t *testing.T, opt func(*Config), site ...PasskeyConfig) *accountsLobby {
	t.Helper()
	return newLobbyOf(t, noMatches{}, opt, site...)
}

// newLobbyOf is newConfiguredLobby with the match service matches.
func newLobbyOf(t *testing.T, matches MatchCreator, opt func(*Config), site ...PasskeyConfig) *accountsLobby {
	t.Helper()
	ctx := t.Context()
	key, _ := auth.GenerateKey()
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)
	rdb, prefix := testenv.Redis(t)
	pool := testenv.Postgres(t)
	cfg := Config{RedisPrefix: prefix, Unlimited: true, Argon2: passwd.Params{Time: 1, MemoryKiB: 64, Threads: 1},
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, Passkeys: append(site, testSite)[0]}
	if opt != nil {
		opt(&cfg)
	}
	lob, err := New(ctx, Deps{Redis: rdb, DB: pool, Issuer: iss, Verifier: ver, Matches: matches}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	lis := grpcservetest.Listen(t)
	runCtx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- grpcserve.Run(runCtx, grpcserve.Options{Listener: lis, ShutdownTimeout: time.Second,
			Auth: auth.NewInterceptor(ver, AuthPolicy())}, lob.Register)
	}()
	t.Cleanup(func() { stop(); <-served })
	conn, err := grpc.NewClient("passthrough:///lobby",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return lis.DialContext(ctx) }}
	t.Cleanup(tr.CloseIdleConnections)
	db := stdlib.OpenDBFromPool(pool)
	t.Cleanup(func() { _ = db.Close() })
	return &accountsLobby{t: t, rdb: rdb, prefix: prefix, key: key, grpc: lobbyv1.NewLobbyServiceClient(conn), hc: &http.Client{Transport: tr}, base: "http://lobby",
		exec: func(q string, args ...any) {
			if _, err := db.ExecContext(ctx, q, args...); err != nil {
				t.Fatal(err)
			}
		}}
}

// call makes a unary call over Connect (JSON, as the web client does)
// from the client address addr with the bearer token tok (either may be
// empty), and returns the response or the error as a gRPC status error.
func call[Req, Res any](l *accountsLobby, method, addr, tok string, req *Req) (*Res, error) {
	c := connect.NewClient[Req, Res](l.hc, l.base+method, connect.WithProtoJSON())
	r := connect.NewRequest(req)
	if addr != "" {
		r.Header().Set("X-Forwarded-For", addr)
	}
	if tok != "" {
		r.Header().Set("Authorization", "Bearer "+tok)
	}
	res, err := c.CallUnary(l.t.Context(), r)
	if err != nil {
		return nil, connectToStatus(err)
	}
	return res.Msg, nil
}

// connectToStatus turns a Connect error into the status error the gRPC
// client would have returned, details included.
func connectToStatus(err error) error {
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return err
	}
	st := status.New(codes.Code(ce.Code()), ce.Message())
	for _, d := range ce.Details() {
		if v, err := d.Value(); err == nil {
			if s2, err := st.WithDetails(protoadapt.MessageV1Of(v)); err == nil {
				st = s2
			}
		}
	}
	return st.Err()
}

// grpcFrom is a context for a gRPC call from the client address addr with
// the bearer token tok.
func grpcFrom(ctx context.Context, addr, tok string) context.Context {
	ctx = metadata.AppendToOutgoingContext(ctx, clientaddr.ForwardedFor, addr)
	if tok != "" {
		ctx = auth.WithToken(ctx, tok)
	}
	return ctx
}

// wantReason fails unless err has code and the ErrorInfo reason name.
func wantReason(t *testing.T, what string, err error, code codes.Code, name string) {
	t.Helper()
	st := status.Convert(err)
	info, _ := reason.Of(st)
	if st.Code() != code || info.GetReason() != name {
		t.Fatalf("%s: %v (reason %q), want %v %s", what, err, info.GetReason(), code, name)
	}
}

// The check: a guest claims an account with a password over
// Connect; a second client (over gRPC, from another address) signs in with
// it, in other letter case, and is the same identity: it sees the first's
// games and username. Look-alike usernames are refused; sign-outs end the
// other clients' tokens.
func TestAccountClaimAndSignInOverConnectAndGRPC(t *testing.T) {
	t.Parallel()
	l := newAccountsLobby(t)
	ctx := t.Context()
	const web, phone = "198.51.100.10", "203.0.113.20"
	guest, err := call[lobbyv1.SignInGuestRequest, lobbyv1.SignInGuestResponse](l, lobbyv1.LobbyService_SignInGuest_FullMethodName, web, "",
		&lobbyv1.SignInGuestRequest{DisplayName: "Ana"})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := call[lobbyv1.SignInGuestRequest, lobbyv1.SignInGuestResponse](l, lobbyv1.LobbyService_SignInGuest_FullMethodName, web, "",
		&lobbyv1.SignInGuestRequest{DisplayName: "Bia"})
	// The guest has played a game (as the match service records it).
	l.exec(`INSERT INTO games (game_id, game, variant, rated, first_player_id, first_display_name, second_player_id,
		second_display_name, base_ms, increment_ms, plies, ply_clock_ms, ply_think_ms, ply_count, result, winner, reason, started_at, ended_at)
		VALUES ('g-1', 'quoridor', 'standard', false, $1, 'Ana', $2, 'Bia', 180000, 2000, 'e2', '179000', '1000', 1,
		'first', 'first', 'goal', $3, $4)`, guest.GetPlayerId(), other.GetPlayerId(), time.Now().Add(-time.Minute), time.Now())

	// Bad claims change nothing.
	for _, tt := range []struct {
		user, pw string
	}{{"ab", "long enough pw"}, {"Ana Maria", "long enough pw"}, {"аna_b", "long enough pw"}, {"Ana_B", "short"}} {
		_, err := call[lobbyv1.ClaimAccountRequest, lobbyv1.ClaimAccountResponse](l, lobbyv1.LobbyService_ClaimAccount_FullMethodName, web,
			guest.GetToken(), &lobbyv1.ClaimAccountRequest{Username: tt.user, Password: tt.pw})
		wantReason(t, "claim "+tt.user, err, codes.InvalidArgument, reason.InvalidRequest)
	}
	const password = "tabuleiro é bom"
	claim, err := call[lobbyv1.ClaimAccountRequest, lobbyv1.ClaimAccountResponse](l, lobbyv1.LobbyService_ClaimAccount_FullMethodName, web,
		guest.GetToken(), &lobbyv1.ClaimAccountRequest{Username: "Ana_B", Password: password})
	if err != nil || claim.GetUsername() != "Ana_B" || claim.GetToken() == "" {
		t.Fatalf("claim: %v, %v", claim, err)
	}
	_, err = call[lobbyv1.ClaimAccountRequest, lobbyv1.ClaimAccountResponse](l, lobbyv1.LobbyService_ClaimAccount_FullMethodName, web,
		claim.GetToken(), &lobbyv1.ClaimAccountRequest{Username: "Ana_C", Password: password})
	wantReason(t, "a second claim", err, codes.FailedPrecondition, reason.AlreadyClaimed)
	// Squatting: the same name in other capitals, and look-alikes (a
	// digit 1 or a capital I for an l; letters of another script, all of
	// one script since mixing is refused outright).
	for _, tt := range []struct{ user, reason string }{
		{"ANA_B", reason.UsernameTaken}, {"aNa_b", reason.UsernameTaken},
	} {
		_, err := l.grpc.ClaimAccount(grpcFrom(ctx, web, other.GetToken()), &lobbyv1.ClaimAccountRequest{Username: tt.user, Password: "another password"})
		wantReason(t, "claim "+tt.user, err, codes.AlreadyExists, tt.reason)
	}
	if _, err := l.grpc.ClaimAccount(grpcFrom(ctx, web, other.GetToken()), &lobbyv1.ClaimAccountRequest{Username: "paola", Password: "another password"}); err != nil {
		t.Fatalf("an unlike username: %v", err)
	}
	third, _ := l.grpc.SignInGuest(grpcFrom(ctx, web, ""), &lobbyv1.SignInGuestRequest{DisplayName: "Caio"})
	for _, squat := range []string{"pao1a", "PaoIa", "paoIa"} {
		_, err := l.grpc.ClaimAccount(grpcFrom(ctx, web, third.GetToken()), &lobbyv1.ClaimAccountRequest{Username: squat, Password: "another password"})
		wantReason(t, "claim "+squat, err, codes.AlreadyExists, reason.UsernameConfusable)
		if info, _ := reason.Of(status.Convert(err)); info.GetMetadata()["username"] != "paola" {
			t.Errorf("claim %s: metadata %v, want the username it looks like", squat, info.GetMetadata())
		}
	}
	if _, err := l.grpc.ClaimAccount(grpcFrom(ctx, web, third.GetToken()), &lobbyv1.ClaimAccountRequest{Username: "ace", Password: "another password"}); err != nil {
		t.Fatal(err)
	}
	fourth, _ := l.grpc.SignInGuest(grpcFrom(ctx, web, ""), &lobbyv1.SignInGuestRequest{DisplayName: "Duda"})
	_, err = l.grpc.ClaimAccount(grpcFrom(ctx, web, fourth.GetToken()), &lobbyv1.ClaimAccountRequest{Username: "асе", Password: "another password"})
	wantReason(t, "claim асе (Cyrillic)", err, codes.AlreadyExists, reason.UsernameConfusable)

	// A second client signs in: the same identity, its games, its stats.
	in, err := l.grpc.SignIn(grpcFrom(ctx, phone, ""), &lobbyv1.SignInRequest{Username: "ana_b", Password: password, Device: "phone"})
	if err != nil {
		t.Fatal(err)
	}
	if in.GetPlayerId() != guest.GetPlayerId() || in.GetUsername() != "Ana_B" || in.GetDisplayName() != "Ana" {
		t.Fatalf("sign-in = %v; want player %s", in, guest.GetPlayerId())
	}
	games, err := l.grpc.ListGames(grpcFrom(ctx, phone, in.GetToken()), &lobbyv1.ListGamesRequest{})
	if err != nil || len(games.GetGames()) != 1 || games.GetGames()[0].GetMatchId() != "g-1" {
		t.Fatalf("the second client's games: %v, %v; want g-1", games, err)
	}
	stats, err := l.grpc.GetStats(grpcFrom(ctx, phone, in.GetToken()), &lobbyv1.GetStatsRequest{})
	if err != nil || stats.GetUsername() != "Ana_B" || stats.GetPlayerId() != guest.GetPlayerId() {
		t.Fatalf("stats: %v, %v", stats, err)
	}
	// A refresh keeps the account (not a guest).
	ref, err := l.grpc.RefreshToken(grpcFrom(ctx, phone, ""), &lobbyv1.RefreshTokenRequest{RefreshToken: in.GetRefreshToken()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.grpc.SignIn(grpcFrom(ctx, phone, ""), &lobbyv1.SignInRequest{Username: "Ana_B", Password: password + "!"})
	wantReason(t, "a wrong password", err, codes.Unauthenticated, reason.CredentialsWrong)
	_, err = l.grpc.SignIn(grpcFrom(ctx, phone, ""), &lobbyv1.SignInRequest{Username: "nobody_here", Password: password})
	wantReason(t, "an unknown username", err, codes.Unauthenticated, reason.CredentialsWrong)

	// Sessions: the guest's sign-in (web) and the phone's.
	list, err := l.grpc.ListSessions(grpcFrom(ctx, phone, ref.GetToken()), &lobbyv1.ListSessionsRequest{})
	if err != nil || len(list.GetSessions()) != 2 {
		t.Fatalf("sessions: %v, %v; want 2", list, err)
	}
	if s := list.GetSessions()[0]; !s.GetCurrent() || s.GetDevice() != "phone" || list.GetSessions()[1].GetCurrent() {
		t.Fatalf("sessions %v: want the phone's first and current", list)
	}
	webSession := list.GetSessions()[1].GetSessionId()
	// The phone signs the web out: the web's tokens end at once.
	if _, err := l.grpc.SignOut(grpcFrom(ctx, phone, ref.GetToken()), &lobbyv1.SignOutRequest{SessionId: webSession}); err != nil {
		t.Fatal(err)
	}
	_, err = call[lobbyv1.ListGamesRequest, lobbyv1.ListGamesResponse](l, lobbyv1.LobbyService_ListGames_FullMethodName, web, claim.GetToken(), &lobbyv1.ListGamesRequest{})
	wantReason(t, "the signed-out web's token", err, codes.Unauthenticated, reason.SignedOut)
	_, err = call[lobbyv1.RefreshTokenRequest, lobbyv1.RefreshTokenResponse](l, lobbyv1.LobbyService_RefreshToken_FullMethodName, web, "",
		&lobbyv1.RefreshTokenRequest{RefreshToken: guest.GetRefreshToken()})
	wantReason(t, "the signed-out web's refresh token", err, codes.Unauthenticated, reason.SignedOut)
	_, err = l.grpc.SignOut(grpcFrom(ctx, phone, ref.GetToken()), &lobbyv1.SignOutRequest{SessionId: webSession})
	wantReason(t, "signing out twice", err, codes.NotFound, reason.NotFound)
	// Someone else's session is not found either.
	_, err = l.grpc.SignOut(grpcFrom(ctx, web, other.GetToken()), &lobbyv1.SignOutRequest{SessionId: list.GetSessions()[0].GetSessionId()})
	wantReason(t, "another's session", err, codes.NotFound, reason.NotFound)
	// Everywhere: the phone's own tokens too.
	out, err := l.grpc.SignOut(grpcFrom(ctx, phone, ref.GetToken()), &lobbyv1.SignOutRequest{Everywhere: true})
	if err != nil || out.GetEnded() != 1 {
		t.Fatalf("sign out everywhere: %v, %v; want 1 ended", out, err)
	}
	_, err = l.grpc.ListSessions(grpcFrom(ctx, phone, ref.GetToken()), &lobbyv1.ListSessionsRequest{})
	wantReason(t, "after signing out everywhere", err, codes.Unauthenticated, reason.SignedOut)
	// The password still signs in.
	if _, err := l.grpc.SignIn(grpcFrom(ctx, phone, ""), &lobbyv1.SignInRequest{Username: "Ana_B", Password: password}); err != nil {
		t.Fatalf("signing in again: %v", err)
	}
}

// Credential stuffing from many addresses against one account: each
// address is limited on its own (5 wrong passwords), the account's owner,
// on an address of its own, is never locked out, typos included; one
// address guessing many accounts is stopped after 30 wrong passwords,
// over every username.
func TestSignInGuessLimits(t *testing.T) {
	t.Parallel()
	l := newAccountsLobby(t)
	ctx := t.Context()
	const owner, password = "198.51.100.1", "the owner's passphrase"
	g, err := l.grpc.SignInGuest(grpcFrom(ctx, owner, ""), &lobbyv1.SignInGuestRequest{DisplayName: "Owner"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.grpc.ClaimAccount(grpcFrom(ctx, owner, g.GetToken()), &lobbyv1.ClaimAccountRequest{Username: "owner", Password: password}); err != nil {
		t.Fatal(err)
	}
	signIn := func(addr, user, pw string) error {
		_, err := call[lobbyv1.SignInRequest, lobbyv1.SignInResponse](l, lobbyv1.LobbyService_SignIn_FullMethodName, addr, "",
			&lobbyv1.SignInRequest{Username: user, Password: pw})
		return err
	}
	exhausted := func(what string, err error) {
		t.Helper()
		wantReason(t, what, err, codes.ResourceExhausted, reason.RateLimited)
		if d, ok := ratelimit.RetryDelay(err); !ok || d <= 0 || d > 15*time.Minute {
			t.Fatalf("%s: retry delay %v, %v", what, d, ok)
		}
	}
	// 30 addresses guess wrong, 5 times each (150 wrong passwords for
	// the account): each is answered, then the address is refused.
	for i := range 30 {
		addr := fmt.Sprintf("203.0.113.%d", i+1)
		for j := range 5 {
			err := signIn(addr, "OWNER", fmt.Sprintf("guess %d %d", i, j))
			wantReason(t, fmt.Sprintf("guess %d from %s", j+1, addr), err, codes.Unauthenticated, reason.CredentialsWrong)
		}
		// Even the right password is not checked from a stuffing address.
		exhausted("the right password from "+addr, signIn(addr, "owner", password))
		if err := signIn(owner, "owner", password); err != nil {
			t.Fatalf("the owner after %d stuffing addresses: %v", i+1, err)
		}
	}
	// The owner's own mistakes count for the owner's address only, and a
	// right password clears them.
	for range 4 {
		wantReason(t, "the owner's typo", signIn(owner, "owner", "typo"), codes.Unauthenticated, reason.CredentialsWrong)
	}
	if err := signIn(owner, "owner", password); err != nil {
		t.Fatalf("the owner after four typos: %v", err)
	}
	for range 5 {
		wantReason(t, "the owner's typo", signIn(owner, "owner", "typo"), codes.Unauthenticated, reason.CredentialsWrong)
	}
	exhausted("the owner's address after five wrong", signIn(owner, "owner", password))
	if err := signIn("198.51.100.2", "owner", password); err != nil {
		t.Fatalf("the owner from another address: %v", err)
	}

	// One address against many accounts, known or not.
	const sprayer = "192.0.2.50"
	for i := range 30 {
		err := signIn(sprayer, fmt.Sprintf("user%d", i), "password1")
		wantReason(t, "a sprayed guess", err, codes.Unauthenticated, reason.CredentialsWrong)
	}
	exhausted("the 31st sprayed guess", signIn(sprayer, "user99", "password1"))
	exhausted("the owner's account from the sprayer's address", signIn(sprayer, "owner", password))
	if err := signIn("192.0.2.51", "owner", password); err != nil {
		t.Fatalf("the owner from the next address: %v", err)
	}
}

// noMatches creates no match (these tests play none).
type noMatches struct{}

func (noMatches) CreateMatch(context.Context, lobby.MatchSpec) (string, error) {
	return "", errors.New("no match service in this test")
}

// A guest's sign-in from a browser is named as a password sign-in from the
// web client is ("Chrome (Linux)"), not by its raw user agent.
func TestGuestSessionNamedByItsBrowser(t *testing.T) {
	t.Parallel()
	l := newAccountsLobby(t)
	c := connect.NewClient[lobbyv1.SignInGuestRequest, lobbyv1.SignInGuestResponse](l.hc,
		l.base+lobbyv1.LobbyService_SignInGuest_FullMethodName, connect.WithProtoJSON())
	r := connect.NewRequest(&lobbyv1.SignInGuestRequest{DisplayName: "Caio"})
	r.Header().Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36")
	guest, err := c.CallUnary(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	list, err := call[lobbyv1.ListSessionsRequest, lobbyv1.ListSessionsResponse](l, lobbyv1.LobbyService_ListSessions_FullMethodName,
		"", guest.Msg.GetToken(), &lobbyv1.ListSessionsRequest{})
	if err != nil || len(list.GetSessions()) != 1 {
		t.Fatalf("sessions: %v, %v; want 1", list, err)
	}
	if d := list.GetSessions()[0].GetDevice(); d != "Chrome (Linux)" {
		t.Fatalf("the guest's session is named %q, want \"Chrome (Linux)\"", d)
	}
}
