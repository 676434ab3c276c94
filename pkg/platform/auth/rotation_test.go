package auth

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Rotating the key: services that sign with the new key and accept the old
// one as previous take tokens of both; once the old key is dropped its
// tokens are refused, naming the key id.
func TestKeyRotation(t *testing.T) {
	oldKey, _ := GenerateKey()
	newKey, _ := GenerateKey()
	oldIss, _ := NewIssuer(oldKey)
	newIss, _ := NewIssuer(newKey)
	oldTok, _, err := oldIss.IssuePlayer("p1", "Ana", true, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	newTok, _, _ := newIss.IssuePlayer("p2", "Bia", true, time.Hour)

	during, err := NewVerifier(newKey, WithPreviousKeys(oldKey))
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{oldTok, newTok} {
		if _, err := during.Verify(tok); err != nil {
			t.Errorf("during the rotation: %v", err)
		}
	}
	after, _ := NewVerifier(newKey)
	if _, err := after.Verify(newTok); err != nil {
		t.Errorf("new token after the rotation: %v", err)
	}
	_, err = after.Verify(oldTok)
	if !errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), KeyID(oldKey)) {
		t.Errorf("old token after the rotation: %v, want ErrInvalidToken naming key id %s", err, KeyID(oldKey))
	}
	// A forged kid naming an accepted key does not help a token signed
	// with another key.
	forger, _ := GenerateKey()
	fIss, _ := NewIssuer(forger)
	forged, _, _ := fIss.IssuePlayer("p3", "Eve", true, time.Hour)
	if _, err := during.Verify(forged); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("token of an unknown key: %v", err)
	}
	if _, err := NewVerifier(newKey, WithPreviousKeys([]byte("short"))); err == nil {
		t.Error("a short previous key was accepted")
	}
}
