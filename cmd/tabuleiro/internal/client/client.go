// Package client talks to a Tabuleiro server over the public gRPC API: the
// lobby (sign-in, games against bots, rooms, queues, history) and the match
// service (Play streams, legal plies), both on one address as the
// one-process mode and a gateway serve them.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/affinity"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/cutstream"
)

// Client is a connection to a server.
type Client struct {
	conn  *grpc.ClientConn
	Lobby lobbyv1.LobbyServiceClient
	Match matchv1.MatchServiceClient
}

// Dial connects to addr (HOST:PORT) in plaintext: the local server listens
// on loopback only; put TLS in front of a shared one.
func Dial(addr string) (*Client, error) {
	// Each match call names its match, for an edge's match affinity.
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithChainUnaryInterceptor(affinity.UnaryClientInterceptor(), cutstream.UnaryClientInterceptor()),
		// A stream a proxy cut when its backend died is UNAVAILABLE, as a
		// direct connection's loss is, and is retried.
		grpc.WithChainStreamInterceptor(cutstream.StreamClientInterceptor()))
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return &Client{conn: conn, Lobby: lobbyv1.NewLobbyServiceClient(conn), Match: matchv1.NewMatchServiceClient(conn)}, nil
}

// Target is the address the client dials.
func (c *Client) Target() string { return c.conn.Target() }

// Bot is the bot service on the same connection (the one-process server
// serves it; a service credential is needed to call it).
func (c *Client) Bot() botv1.BotServiceClient { return botv1.NewBotServiceClient(c.conn) }

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Player is a signed-in identity.
type Player struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
	// RefreshToken gets the next token (lobby.v1 RefreshToken); each is
	// good for one refresh, and the one it returns replaces it. Empty for
	// an identity kept before refresh tokens (its token is exchanged once).
	RefreshToken     string    `json:"refresh_token,omitempty"`
	RefreshExpiresAt time.Time `json:"refresh_expires_at,omitzero"`
	// Username is the account's, for an identity signed in to an account
	// (`tabuleiro login`); empty for a guest.
	Username string `json:"username,omitempty"`
}

// Context returns ctx carrying the player's token for outgoing calls.
func (p Player) Context(ctx context.Context) context.Context { return auth.WithToken(ctx, p.Token) }

// SignIn signs in a new guest.
func (c *Client) SignIn(ctx context.Context, name string) (Player, error) {
	resp, err := c.Lobby.SignInGuest(ctx, &lobbyv1.SignInGuestRequest{DisplayName: name})
	if err != nil {
		return Player{}, fmt.Errorf("sign in as %q: %w", name, err)
	}
	return Player{ID: resp.GetPlayerId(), Name: name, Token: resp.GetToken(), ExpiresAt: resp.GetExpiresAt().AsTime(),
		RefreshToken: resp.GetRefreshToken(), RefreshExpiresAt: resp.GetRefreshExpiresAt().AsTime()}, nil
}

// Identity returns the player kept under key in the file path (a JSON
// object of identities, one per server), refreshing its token when due,
// or signs in a new guest called name and keeps it. Keeping the identity
// is what makes history, stats and resumption follow a person across runs.
func (c *Client) Identity(ctx context.Context, path, key, name string) (Player, error) {
	ids, err := readIdentities(path)
	if err != nil {
		return Player{}, err
	}
	p, ok := ids[key]
	if ok && !c.knows(ctx, p) {
		ok = false // the server lost its players (a new database): a new guest
	}
	switch {
	case ok && time.Until(p.ExpiresAt) > time.Hour:
		return p, nil
	case ok:
		req := &lobbyv1.RefreshTokenRequest{RefreshToken: p.RefreshToken}
		if p.RefreshToken == "" {
			req.Token = p.Token // kept before refresh tokens: exchanged once
		}
		resp, err := c.Lobby.RefreshToken(ctx, req)
		if err == nil {
			// The refresh token is spent: keep the new one before anything
			// else can fail.
			p.Token, p.ExpiresAt = resp.GetToken(), resp.GetExpiresAt().AsTime()
			p.RefreshToken, p.RefreshExpiresAt = resp.GetRefreshToken(), resp.GetRefreshExpiresAt().AsTime()
			break
		}
		if status.Code(err) != codes.Unauthenticated {
			return Player{}, fmt.Errorf("refresh token: %w", err)
		}
		fallthrough // too old, or the server's key changed: a new guest
	default:
		var err error
		if p, err = c.SignIn(ctx, name); err != nil {
			return Player{}, err
		}
	}
	return p, keep(path, ids, key, p)
}

// Rename changes the display name of the player kept under key in the
// file path (lobby.v1 SetDisplayName) and keeps the new token.
func (c *Client) Rename(ctx context.Context, path, key string, p Player, name string) (Player, error) {
	resp, err := c.Lobby.SetDisplayName(p.Context(ctx), &lobbyv1.SetDisplayNameRequest{DisplayName: name})
	if err != nil {
		return Player{}, fmt.Errorf("change your name to %q: %w", name, err)
	}
	p.Name, p.Token, p.ExpiresAt = name, resp.GetToken(), resp.GetExpiresAt().AsTime()
	ids, err := readIdentities(path)
	if err != nil {
		return Player{}, err
	}
	return p, keep(path, ids, key, p)
}

// Keep keeps p under key in the file path, replacing the identity kept
// there: the next command on that server is p (`tabuleiro login`).
func Keep(path, key string, p Player) error {
	ids, err := readIdentities(path)
	if err != nil {
		return err
	}
	return keep(path, ids, key, p)
}

// readIdentities returns the identities kept in the file path (a JSON
// object of players by key); none when there is no such file.
func readIdentities(path string) (map[string]Player, error) {
	ids := map[string]Player{}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return ids, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &ids); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return ids, nil
}

// keep writes ids with p under key to the file path.
func keep(path string, ids map[string]Player, key string, p Player) error {
	ids[key] = p
	b, err := json.MarshalIndent(ids, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("keep identity: %w", err)
	}
	return nil
}

// knows reports whether the server still knows player p: false only when
// it says NotFound for p's own stats (its database was replaced), so a
// server that is merely unreachable keeps the identity.
func (c *Client) knows(ctx context.Context, p Player) bool {
	_, err := c.Lobby.GetStats(p.Context(ctx), &lobbyv1.GetStatsRequest{})
	return status.Code(err) != codes.NotFound
}

// KnownIdentity returns the id of the player kept under key in the file
// path, without signing in or refreshing; "" when there is none.
func KnownIdentity(path, key string) string {
	ids, _ := readIdentities(path) // none when unreadable
	return ids[key].ID
}

// Known returns the player kept under key in the file path, without
// signing in or refreshing; its ID is "" when there is none.
func Known(path, key string) Player {
	ids, _ := readIdentities(path) // none when unreadable
	return ids[key]
}

// KnownName returns the display name this person already uses, from the
// identities kept in the file path: the one-process mode's ("local"),
// else the first server's in key order (second players of one keyboard,
// kept under KEY#N, do not count); "" when none is kept.
func KnownName(path string) string {
	ids, _ := readIdentities(path) // none when unreadable
	if n := ids["local"].Name; n != "" {
		return n
	}
	keys := make([]string, 0, len(ids))
	for k := range ids {
		if !strings.Contains(k, "#") && ids[k].Name != "" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return ""
	}
	return ids[keys[0]].Name
}

// Stream is one seat's Play stream. Send is safe for concurrent use.
type Stream struct {
	mu     sync.Mutex
	s      matchv1.MatchService_PlayClient
	cancel context.CancelFunc
}

// Join opens a Play stream for p and joins matchID, passing the last event
// seen (0 for none).
func (c *Client) Join(ctx context.Context, p Player, matchID string, lastSeq int64) (*Stream, error) {
	ctx, cancel := context.WithCancel(affinity.Context(p.Context(ctx), matchID))
	s, err := c.Match.Play(ctx)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("play %s: %w", matchID, err)
	}
	st := &Stream{s: s, cancel: cancel}
	if err := st.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_Join{Join: &matchv1.JoinMatch{MatchId: matchID, LastSeq: lastSeq}}}); err != nil {
		cancel()
		return nil, fmt.Errorf("join %s: %w", matchID, err)
	}
	return st, nil
}

// Send sends one request.
func (s *Stream) Send(req *matchv1.PlayRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.s.Send(req)
}

// Recv receives the next message; io.EOF once the match has ended. The
// server's lag probes are answered here, at once, and not returned: the
// server measures the seat's round trip by them, to credit its plies'
// transit time to its clock.
func (s *Stream) Recv() (*matchv1.PlayResponse, error) {
	for {
		r, err := s.s.Recv()
		if err != nil {
			return nil, err
		}
		p := r.GetProbe()
		if p == nil {
			return r, nil
		}
		// A failed answer loses one sample; the stream's error, if any,
		// comes with the next Recv.
		_ = s.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_ProbeAnswer{ProbeAnswer: &matchv1.ProbeAnswer{Id: p.GetId()}}})
	}
}

// Close ends the stream.
func (s *Stream) Close() { s.cancel() }
