package rpc

import (
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/pkg/platform/rpcerr"
	"tabuleiro.dev/services/lobby/internal/accounts"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/matchmaking"
	"tabuleiro.dev/services/lobby/internal/passkeys"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
)

// toStatus is the lobby's one mapping from domain errors to gRPC codes. A
// message longer than maxMessage bytes (one that repeats a caller's long
// input the domain did not clip, say) is cut.
func toStatus(err error) error {
	serr := mapStatus(err)
	st, ok := status.FromError(serr)
	if !ok || len(st.Message()) <= maxMessage {
		return serr
	}
	msg := st.Message()[:maxMessage]
	for len(msg) > 0 && !utf8.RuneStart(st.Message()[len(msg)]) {
		msg = msg[:len(msg)-1]
	}
	p := st.Proto()
	p.Message = msg + "…"
	return status.FromProto(p).Err() // keeps the ErrorInfo
}

const maxMessage = 256

var mapStatus = rpcerr.Must(rpcerr.Mapper{
	{Err: lobby.ErrUsernameTaken, Code: codes.AlreadyExists, Reason: reason.UsernameTaken},
	{Err: lobby.ErrUsernameConfusable, Code: codes.AlreadyExists, Reason: reason.UsernameConfusable},
	{Err: lobby.ErrAlreadyClaimed, Code: codes.FailedPrecondition, Reason: reason.AlreadyClaimed, Message: "this identity is an account already"},
	{Err: accounts.ErrPasswordWrong, Code: codes.PermissionDenied, Reason: reason.PasswordWrong},
	{Err: passkeys.ErrOff, Code: codes.FailedPrecondition, Reason: reason.PasskeysUnavailable},
	{Err: passkeys.ErrMalformed, Code: codes.InvalidArgument, Reason: reason.InvalidRequest},
	{Err: passkeys.ErrChallengeExpired, Code: codes.FailedPrecondition, Reason: reason.PasskeyChallengeExpired},
	{Err: passkeys.ErrChallengeUsed, Code: codes.FailedPrecondition, Reason: reason.PasskeyChallengeUsed},
	{Err: passkeys.ErrWrongSite, Code: codes.PermissionDenied, Reason: reason.PasskeyWrongSite},
	{Err: passkeys.ErrUnknown, Code: codes.Unauthenticated, Reason: reason.PasskeyUnknown},
	{Err: passkeys.ErrRefused, Code: codes.Unauthenticated, Reason: reason.PasskeyRefused},
	{Err: sqlstore.ErrPasskeyExists, Code: codes.AlreadyExists, Reason: reason.PasskeyExists},
	{Err: lobby.ErrBadCredentials, Code: codes.Unauthenticated, Reason: reason.CredentialsWrong, Message: "wrong username or password"},
	{Err: lobby.ErrInvalid, Code: codes.InvalidArgument, Reason: reason.InvalidRequest},
	{Err: lobby.ErrNotFound, Code: codes.NotFound, Reason: reason.NotFound},
	{Err: lobby.ErrPasswordNeeded, Code: codes.PermissionDenied, Reason: reason.RoomPasswordNeeded, Message: "this room needs its password: ask its host"},
	{Err: lobby.ErrWrongPassword, Code: codes.PermissionDenied, Reason: reason.RoomPasswordWrong, Message: "wrong room password"},
	{Err: lobby.ErrForbidden, Code: codes.PermissionDenied, Reason: reason.PermissionDenied},
	{Err: lobby.ErrTooManyAttempts, Code: codes.ResourceExhausted, Reason: reason.LimitReached},
	{Err: lobby.ErrBusy, Code: codes.FailedPrecondition, Reason: reason.AlreadyInMatch},
	{Err: lobby.ErrPrecondition, Code: codes.FailedPrecondition, Reason: reason.NotNow},
	{Err: lobby.ErrReplaced, Code: codes.Aborted, Reason: reason.TicketReplaced},
	{Err: lobby.ErrUnauthenticated, Code: codes.Unauthenticated, Reason: reason.TokenInvalid, Message: "missing, forged or expired token"},
	{Err: matchmaking.ErrExpired, Code: codes.Aborted, Reason: reason.TicketExpired, Message: "ticket expired; queue again"},
	{Err: matchmaking.ErrMatchFailed, Code: codes.Unavailable, Reason: reason.MatchNotCreated, Message: "the match could not be created; queue again"},
}).Status
