package rpc

import (
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/rpcerr"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/matchmaking"
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
	return status.Error(st.Code(), msg+"…")
}

const maxMessage = 256

var mapStatus = rpcerr.Mapper{
	{Err: lobby.ErrInvalid, Code: codes.InvalidArgument},
	{Err: lobby.ErrNotFound, Code: codes.NotFound},
	{Err: lobby.ErrPasswordNeeded, Code: codes.PermissionDenied, Message: "this room needs its password: ask its host"},
	{Err: lobby.ErrWrongPassword, Code: codes.PermissionDenied, Message: "wrong room password"},
	{Err: lobby.ErrForbidden, Code: codes.PermissionDenied},
	{Err: lobby.ErrTooManyAttempts, Code: codes.ResourceExhausted},
	{Err: lobby.ErrPrecondition, Code: codes.FailedPrecondition},
	{Err: lobby.ErrReplaced, Code: codes.Aborted},
	{Err: lobby.ErrUnauthenticated, Code: codes.Unauthenticated, Message: "missing, forged or expired token"},
	{Err: matchmaking.ErrExpired, Code: codes.Aborted, Message: "ticket expired; queue again"},
	{Err: matchmaking.ErrMatchFailed, Code: codes.Unavailable, Message: "the match could not be created; queue again"},
}.Status
