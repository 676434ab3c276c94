package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/extra/redisotel/v9"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/telemetry"
	"tabuleiro.dev/pkg/platform/telemetry/pgxtrace"
	"tabuleiro.dev/services/bot/botserver"
	"tabuleiro.dev/services/lobby/lobbyserver"
	"tabuleiro.dev/services/match/matchserver"
)

// stackOptions choose how the services run.
type stackOptions struct {
	// TLS serves every endpoint with a certificate signed by a private CA
	// generated for the test, and makes lobby→match and match→bot trust it.
	TLS bool
	// Telemetry per service ("lobby", "match", "bot"); missing ones are
	// disabled.
	Telemetry map[string]*telemetry.Telemetry
	// Log receives the services' JSON logs; nil discards them.
	Log io.Writer
}

// stack is lobby, match and bot serving on loopback.
type stack struct {
	lobbyAddr, matchAddr, botAddr string
	caFile                        string
	issuer                        *auth.Issuer
}

func testEnv(t *testing.T) (redisURL, dbURL string) {
	t.Helper()
	redisURL, dbURL = os.Getenv("TABULEIRO_TEST_REDIS_URL"), os.Getenv("TABULEIRO_TEST_DATABASE_URL")
	if redisURL == "" || dbURL == "" {
		t.Fatal("TABULEIRO_TEST_REDIS_URL and TABULEIRO_TEST_DATABASE_URL are not set: run the tests with scripts/test.sh")
	}
	return redisURL, dbURL
}

// writeCerts generates a CA and a certificate for 127.0.0.1 and localhost
// signed by it, and writes ca.crt, tls.crt and tls.key into dir.
func writeCerts(t *testing.T, dir string) (caFile, certFile, keyFile string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tabuleiro-test-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "tabuleiro"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		DNSNames: []string{"localhost", "lobby", "match", "bot"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("ca.crt", "CERTIFICATE", caDER), write("tls.crt", "CERTIFICATE", der), write("tls.key", "EC PRIVATE KEY", keyDER)
}

// startStack runs bot, match and lobby until the test ends. Redis keys
// live under a prefix of their own.
func startStack(t *testing.T, o stackOptions) *stack {
	t.Helper()
	redisURL, dbURL := testEnv(t)
	tel := func(svc string) *telemetry.Telemetry {
		if tt := o.Telemetry[svc]; tt != nil {
			return tt
		}
		return telemetry.Disabled()
	}
	// A test that reads the logs gets the per-call lines too (DEBUG, off
	// by default in the services).
	logOut, level := o.Log, slog.LevelDebug
	if logOut == nil {
		logOut, level = io.Discard, slog.LevelInfo
	}
	logger := func(svc string) *slog.Logger {
		return telemetry.NewLogger(logOut, level).With("service", svc)
	}
	key, err := auth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	iss, err := auth.NewIssuer(key)
	if err != nil {
		t.Fatal(err)
	}
	ver, err := auth.NewVerifier(key)
	if err != nil {
		t.Fatal(err)
	}
	s := &stack{issuer: iss}
	var certFile, keyFile string
	if o.TLS {
		s.caFile, certFile, keyFile = writeCerts(t, t.TempDir())
	}
	serverTLS, err := grpcserve.ServerTLS(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	var closers []func() // stores and connections, closed after the services stop
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
		close(errs)
		for err := range errs {
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("service stopped with: %v", err)
			}
		}
	})
	listen := func() net.Listener {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return lis
	}
	serve := func(opts grpcserve.Options, register func(*grpc.Server)) string {
		lis := listen()
		opts.Listener, opts.ShutdownTimeout = lis, 2*time.Second
		wg.Go(func() { errs <- grpcserve.Run(ctx, opts, register) })
		return lis.Addr().String()
	}
	dial := func(addr, as string, tt *telemetry.Telemetry) *grpc.ClientConn {
		conn, err := grpcserve.Dial("dns:///"+addr, grpcserve.DialOptions{CAFile: s.caFile, Telemetry: tt,
			PerRPC: auth.NewServiceCredentials(iss, as, time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		closers = append(closers, func() { _ = conn.Close() })
		return conn
	}
	prefix := "e2e-" + rand.Text()[:10] + ":"
	closers = append(closers, func() { cleanRedis(t, redisURL, prefix) })

	// bot
	botOpts, err := botserver.Options(botserver.Config{TokenKey: key}, botserver.Deps{Logger: logger("bot"), Telemetry: tel("bot")})
	if err != nil {
		t.Fatal(err)
	}
	botOpts.TLS = serverTLS
	s.botAddr = serve(botOpts, botserver.Register)

	// match
	mrdb := redisClient(t, redisURL, tel("match"))
	closers = append(closers, func() { _ = mrdb.Close() })
	pcfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	pcfg.Tracer = pgxtrace.New(tel("match").TracerProvider)
	mdb := stdlib.OpenDB(*pcfg)
	closers = append(closers, func() { _ = mdb.Close() })
	botConn := dial(s.botAddr, "match", tel("match"))
	ms := matchserver.New(ctx, matchserver.Deps{Redis: mrdb, DB: mdb, Logger: logger("match"),
		Bot: matchserver.NewBotClient(botv1.NewBotServiceClient(botConn))},
		matchserver.Config{KeyPrefix: prefix + "match:", InstanceID: "e2e", Migrate: true})
	wg.Go(func() { errs <- ms.Run(ctx) })
	s.matchAddr = serve(grpcserve.Options{Logger: logger("match"), Telemetry: tel("match"), TLS: serverTLS,
		Auth: auth.NewInterceptor(ver, auth.Policy{ServiceOnly: matchserver.ServiceOnly()})}, ms.Register)

	// lobby
	lrdb := redisClient(t, redisURL, tel("lobby"))
	closers = append(closers, func() { _ = lrdb.Close() })
	lcfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	lcfg.ConnConfig.Tracer = pgxtrace.New(tel("lobby").TracerProvider)
	pool, err := pgxpool.NewWithConfig(ctx, lcfg)
	if err != nil {
		t.Fatal(err)
	}
	closers = append(closers, pool.Close)
	matchConn := dial(s.matchAddr, "lobby", tel("lobby"))
	lob, err := lobbyserver.New(ctx, lobbyserver.Deps{Redis: lrdb, DB: pool, Issuer: iss, Verifier: ver, Logger: logger("lobby"),
		Matches: lobbyserver.NewMatchClient(matchv1.NewMatchServiceClient(matchConn))},
		lobbyserver.Config{RedisPrefix: prefix + "lobby:"})
	if err != nil {
		t.Fatal(err)
	}
	wg.Go(func() { errs <- lob.Run(ctx) })
	s.lobbyAddr = serve(grpcserve.Options{Logger: logger("lobby"), Telemetry: tel("lobby"), TLS: serverTLS,
		Auth: auth.NewInterceptor(ver, lobbyserver.AuthPolicy())}, lob.Register)
	return s
}

func redisClient(t *testing.T, url string, tt *telemetry.Telemetry) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	if err := redisotel.InstrumentTracing(rdb, redisotel.WithTracerProvider(tt.TracerProvider), redisotel.WithDBStatement(false)); err != nil {
		t.Fatal(err)
	}
	return rdb
}

func cleanRedis(t *testing.T, url, prefix string) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	ctx := context.Background()
	var keys []string
	iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if len(keys) > 0 {
		if err := rdb.Del(ctx, keys...).Err(); err != nil {
			t.Logf("clean up redis: %v", err)
		}
	}
}

// clientCreds are a player's transport credentials: TLS trusting the
// stack's CA when it serves TLS.
func (s *stack) clientCreds(t *testing.T) credentials.TransportCredentials {
	t.Helper()
	c, err := grpcserve.ClientCredentials(s.caFile)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// client dials addr as a player would (no service credential), with opts
// added.
func (s *stack) client(t *testing.T, addr string, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, append([]grpc.DialOption{grpc.WithTransportCredentials(s.clientCreds(t))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// playBotGame asks the lobby for a Quoridor game against an easy bot,
// taking the second seat so that the bot moves first (its first ply is
// asked for while the match is created), plays humanPlies legal plies
// through the match Play stream, resigns and waits for the end. It returns
// the match id and the number of plies played.
func (s *stack) playBotGame(ctx context.Context, t *testing.T, lobby, match *grpc.ClientConn, humanPlies int) (string, int) {
	t.Helper()
	tok, _, err := s.issuer.IssuePlayer("p-"+rand.Text()[:8], "tester", true, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ctx = auth.WithToken(ctx, tok)
	resp, err := lobbyv1.NewLobbyServiceClient(lobby).PlayBot(ctx, &lobbyv1.PlayBotRequest{
		Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", Level: gamev1.BotLevel_BOT_LEVEL_EASY, Seat: gamev1.Seat_SEAT_SECOND,
	})
	if err != nil {
		t.Fatalf("PlayBot: %v", err)
	}
	if resp.GetYourSeat() != gamev1.Seat_SEAT_SECOND {
		t.Fatalf("PlayBot seat = %v, want SEAT_SECOND", resp.GetYourSeat())
	}
	stream, err := matchv1.NewMatchServiceClient(match).Play(ctx)
	if err != nil {
		t.Fatalf("Play: %v", err)
	}
	send := func(r *matchv1.PlayRequest) {
		t.Helper()
		if err := stream.Send(r); err != nil {
			t.Fatalf("send %v: %v", r, err)
		}
	}
	send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_Join{Join: &matchv1.JoinMatch{MatchId: resp.GetMatchId()}}})
	var plies []string
	played, resigned := 0, false
	for {
		m, err := stream.Recv()
		if err != nil {
			t.Fatalf("recv after %d plies: %v", len(plies), err)
		}
		switch {
		case m.GetSnapshot() != nil:
			plies = plies[:0]
			for _, p := range m.GetSnapshot().GetPlies() {
				plies = append(plies, p.GetNotation())
			}
		case m.GetEvent().GetPlyPlayed() != nil:
			if n := int(m.GetEvent().GetPlyPlayed().GetPly().GetNumber()); n == len(plies)+1 {
				plies = append(plies, m.GetEvent().GetPlyPlayed().GetPly().GetNotation())
			}
		case m.GetEvent().GetGameEnded() != nil:
			if !resigned {
				t.Fatalf("game ended before the resignation: %v", m.GetEvent().GetGameEnded())
			}
			return resp.GetMatchId(), len(plies)
		case m.GetPlyRejected() != nil || m.GetActionRejected() != nil:
			t.Fatalf("rejected: %v", m)
		default:
			continue
		}
		if resigned || len(plies)%2 == 0 {
			continue // the bot's turn
		}
		if played == humanPlies {
			send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_Resign{Resign: &matchv1.Resign{}}})
			resigned = true
			continue
		}
		ply := legalPly(t, plies)
		send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{PlyNumber: int32(len(plies) + 1), Notation: ply}}})
		played++
	}
}

// legalPly returns the first legal ply after plies in standard Quoridor.
func legalPly(t *testing.T, plies []string) string {
	t.Helper()
	pos, err := games.New(engine.Quoridor, "standard", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range plies {
		p, err := pos.ParsePly(n)
		if err != nil {
			t.Fatalf("ply %q: %v", n, err)
		}
		if pos, err = pos.Play(p); err != nil {
			t.Fatalf("ply %q: %v", n, err)
		}
	}
	legal := pos.Legal()
	if len(legal) == 0 {
		t.Fatalf("no legal ply after %v", plies)
	}
	return legal[0].String()
}
