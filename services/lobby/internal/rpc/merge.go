package rpc

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/sessions"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
)

// badProof refuses a guest proof: why says what is wrong with it.
func badProof(why string) error {
	return reason.Error(codes.Unauthenticated, reason.GuestProofInvalid, why, nil)
}

// guestProof verifies the proof of a MergeGuest request and returns the
// guest's player id and the sign-in the proof belongs to.
func (s *Server) guestProof(ctx context.Context, req *lobbyv1.MergeGuestRequest) (string, error) {
	switch {
	case req.GetGuestRefreshToken() == "" && req.GetGuestToken() == "":
		return "", toStatus(lobby.Invalid("guest_refresh_token", "is required (or guest_token)"))
	case req.GetGuestRefreshToken() != "" && req.GetGuestToken() != "":
		return "", toStatus(lobby.Invalid("guest_token", "must be empty with guest_refresh_token: one proof"))
	case req.GetGuestRefreshToken() != "":
		r, err := s.d.Verifier.VerifyRefresh(req.GetGuestRefreshToken())
		switch {
		case errors.Is(err, auth.ErrExpiredToken):
			return "", badProof("the guest's refresh token expired")
		case err != nil:
			return "", badProof("the guest's refresh token is not one of this server's")
		}
		return r.PlayerID, nil
	}
	p, err := s.d.Verifier.Verify(req.GetGuestToken())
	switch {
	case errors.Is(err, auth.ErrExpiredToken):
		return "", badProof("the guest's token expired")
	case err != nil || p.PlayerID() == "":
		return "", badProof("the guest's token is not one of this server's")
	}
	return p.PlayerID(), nil
}

// holds checks that the proof's sign-in is live and, for a refresh
// token, that it is the sign-in's current one.
func (s *Server) holds(ctx context.Context, req *lobbyv1.MergeGuestRequest, guestID string) error {
	var err error
	if req.GetGuestRefreshToken() != "" {
		r, _ := s.d.Verifier.VerifyRefresh(req.GetGuestRefreshToken()) // verified by guestProof
		err = s.d.Sessions.Holds(ctx, r.Family, guestID, r.Generation)
	} else {
		p, _ := s.d.Verifier.Verify(req.GetGuestToken())
		if p.Family != "" {
			err = s.d.Sessions.Check(ctx, p.Family)
		}
	}
	switch {
	case errors.Is(err, sessions.ErrReused):
		return badProof("the guest's refresh token was exchanged already: only its current one proves the guest")
	case errors.Is(err, sessions.ErrSignedOut):
		return badProof("the guest's sign-in was signed out")
	case errors.Is(err, sessions.ErrRevoked):
		return badProof("the guest's sign-in was revoked (a refresh token was used twice)")
	case errors.Is(err, sessions.ErrUnknown):
		return badProof("the guest's sign-in is unknown or expired")
	case err != nil:
		return toStatus(err)
	}
	return nil
}

// MergeGuest merges a guest the caller proves it holds into the caller's
// account (see lobby.v1 MergeGuest).
func (s *Server) MergeGuest(ctx context.Context, req *lobbyv1.MergeGuestRequest) (*lobbyv1.MergeGuestResponse, error) {
	pr, err := s.player(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	if _, err := s.d.Store.AccountByPlayer(ctx, pr.PlayerID()); errors.Is(err, lobby.ErrNotFound) {
		return nil, reason.Error(codes.FailedPrecondition, reason.AccountNeeded, "only an account may take a guest in: sign in to one, or claim this guest", nil)
	} else if err != nil {
		return nil, toStatus(err)
	}
	guestID, err := s.guestProof(ctx, req)
	if err != nil {
		return nil, err
	}
	if guestID == pr.PlayerID() {
		return nil, reason.Error(codes.FailedPrecondition, reason.GuestIsCaller, "the guest's token is the account's own: nothing to merge", nil)
	}
	into, err := s.d.Store.MergedInto(ctx, guestID)
	if errors.Is(err, lobby.ErrNotFound) {
		return nil, badProof("the guest's token names no player here")
	} else if err != nil {
		return nil, toStatus(err)
	}
	res := &lobbyv1.MergeGuestResponse{GuestPlayerId: guestID}
	switch {
	case into == pr.PlayerID():
		// Done before (a retry, or a second device holding the guest):
		// its sign-ins end again, should one have started since.
		n, err := s.d.Sessions.SignOutAll(ctx, guestID)
		if err != nil {
			return nil, toStatus(err)
		}
		res.AlreadyMerged, res.SessionsEnded = true, int32(n)
		return res, nil
	case into != "":
		return nil, reason.Error(codes.FailedPrecondition, reason.GuestIsAccount, "this guest was merged into another account", nil)
	}
	if err := s.holds(ctx, req, guestID); err != nil {
		return nil, err
	}
	if s.d.Live != nil {
		live, err := s.d.Live.ListMatches(ctx, guestID)
		if err != nil {
			return nil, toStatus(fmt.Errorf("live matches of the guest: %w", err))
		}
		if len(live) > 0 {
			return nil, reason.Error(codes.FailedPrecondition, reason.GuestInGame,
				fmt.Sprintf("the guest is playing match %s: merge once it is over", live[0].GetMatchId()), nil)
		}
	}
	m, err := s.d.Store.MergeGuest(ctx, guestID, pr.PlayerID())
	switch {
	case errors.Is(err, sqlstore.ErrNotGuest):
		return nil, reason.Error(codes.FailedPrecondition, reason.GuestIsAccount, "the guest's token names an account or a deleted player, not a guest", nil)
	case errors.Is(err, sqlstore.ErrGuestUnrated):
		return nil, reason.Error(codes.FailedPrecondition, reason.GuestInGame, "a rated game of the guest is not in the ratings yet: retry in a few seconds", nil)
	case errors.Is(err, sqlstore.ErrSamePlayer):
		return nil, reason.Error(codes.FailedPrecondition, reason.GuestIsCaller, "the guest's token is the account's own: nothing to merge", nil)
	case err != nil:
		return nil, toStatus(err)
	}
	n, err := s.d.Sessions.SignOutAll(ctx, guestID)
	if err != nil {
		return nil, toStatus(err)
	}
	res.Games, res.AlreadyMerged, res.SessionsEnded = int32(m.Games), m.Already, int32(n)
	return res, nil
}
