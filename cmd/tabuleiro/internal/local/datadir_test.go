package local

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/autoplay"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

// A second one-process server on a data directory in use is refused
// before it touches the stores, saying what to do; the first one goes on.
// (Two of them appending to one log broke it for good: the breaker's
// `serve` and `history` on one directory.)
func TestDataDirectoryInUse(t *testing.T) {
	t.Parallel()
	o := Options{DataDir: t.TempDir()}
	c, _ := start(t, o)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	srv, err := Start(ctx, o)
	if err == nil {
		cancel()
		_ = srv.Wait()
		t.Fatal("a second server started on a data directory in use")
	}
	for _, want := range []string{"another tabuleiro command (process ", o.DataDir, "--server ADDR", "--data-dir"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	if _, err := c.Lobby.SignInGuest(t.Context(), &lobbyv1.SignInGuestRequest{DisplayName: "Still here"}); err != nil {
		t.Errorf("the first server after the refusal: %v", err)
	}
}

// The data directory is one command's whatever stores it uses: with
// --redis-url (and --database-url) the token key and identities are still
// the directory's, so a second server there is refused like the plain
// case, both ways round. (The breaker's `serve --redis-url` started on a
// directory a plain `serve` held: only the embedded Redis's log was locked.)
func TestDataDirectoryInUseWithRealStores(t *testing.T) {
	t.Parallel()
	_, prefix := testenv.Redis(t, "local")
	dir := t.TempDir()
	plain := Options{DataDir: dir}
	real := Options{DataDir: dir, RedisURL: testenv.RedisURL(t), DatabaseURL: testenv.PostgresDSN(t), KeyPrefix: prefix}
	for _, tt := range []struct {
		name          string
		first, second Options
	}{
		{"real stores after the embedded ones", plain, real},
		{"the embedded stores after real ones", real, plain},
		{"real stores after real ones", real, real},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			first, err := Start(ctx, tt.first)
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			defer func() { cancel(); _ = first.Wait() }()
			sctx, scancel := context.WithCancel(t.Context())
			defer scancel()
			srv, err := Start(sctx, tt.second)
			if err == nil {
				scancel()
				_ = srv.Wait()
				t.Fatal("a second server started on a data directory in use")
			}
			var busy *BusyError
			if !errors.As(err, &busy) || busy.Dir != dir || busy.PID != os.Getpid() {
				t.Fatalf("refusal %v is not the data directory's, held by this process", err)
			}
			for _, want := range []string{"another tabuleiro command (process ", dir, "--server ADDR", "--data-dir"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("refusal %q does not say %q", err, want)
				}
			}
		})
	}
}

// Every file of the data directory is the user's alone, as token.key is:
// results.db and its WAL hold every game and rating, and were created 0644.
func TestDataDirectoryFilesArePrivate(t *testing.T) {
	t.Parallel()
	for _, old := range []bool{false, true} {
		t.Run(map[bool]string{false: "new", true: "left readable by an older version"}[old], func(t *testing.T) {
			dir := t.TempDir()
			if old {
				if err := os.WriteFile(filepath.Join(dir, "results.db"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c, _ := start(t, Options{DataDir: dir})
			p, err := c.SignIn(t.Context(), "Ana")
			if err != nil {
				t.Fatal(err)
			}
			id := playBot(t, c, p, gamev1.Game_GAME_CORNERS, "classic-3x3")
			if _, err := autoplay.Seat(t.Context(), c, p, id, autoplay.Random(7)); err != nil {
				t.Fatal(err)
			}
			waitGames(t, c, p, 1)
			seen := map[string]bool{}
			err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err != nil || path == dir {
					return err
				}
				info, err := d.Info()
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(dir, path)
				seen[rel] = true
				if info.Mode().Perm()&0o077 != 0 {
					t.Errorf("%s is %v: others may read it", rel, info.Mode().Perm())
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"results.db", "results.db-wal", "token.key"} {
				if !seen[f] {
					t.Errorf("no %s in the data directory (files: %v)", f, seen)
				}
			}
		})
	}
}
