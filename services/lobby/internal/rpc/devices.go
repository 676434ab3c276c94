package rpc

import (
	"context"
	"errors"
	"math"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/services/lobby/internal/devices"
	"tabuleiro.dev/services/lobby/internal/lobby"
)

// devicesOff answers the device sign-in RPCs of a lobby without a store.
var devicesOff = status.Error(codes.Unimplemented, "device sign-in is not served here: sign in with a password")

// seconds is d in whole seconds, rounded up, at least 1.
func seconds(d time.Duration) int32 {
	return int32(max(1, math.Ceil(d.Seconds())))
}

// StartDeviceSignIn starts an RFC 8628 device sign-in.
func (s *Server) StartDeviceSignIn(ctx context.Context, req *lobbyv1.StartDeviceSignInRequest) (*lobbyv1.StartDeviceSignInResponse, error) {
	if s.d.Devices == nil {
		return nil, devicesOff
	}
	if utf8.RuneCountInString(req.GetDevice()) > maxDevice {
		return nil, toStatus(lobby.Invalid("device", "must be at most %d characters", maxDevice))
	}
	if err := s.limit(ctx, s.d.Limits.Device, "device"); err != nil {
		return nil, err
	}
	dc, uc, exp, err := s.d.Devices.Start(ctx, device(ctx, req.GetDevice()), s.d.Now())
	if err != nil {
		return nil, toStatus(err)
	}
	page := s.devicePage(ctx)
	shown := devices.FormatUserCode(uc)
	return &lobbyv1.StartDeviceSignInResponse{DeviceCode: dc, UserCode: shown,
		VerificationUri: page, VerificationUriComplete: page + "?code=" + url.QueryEscape(shown),
		ExpiresAt: timestamppb.New(exp), IntervalSeconds: seconds(s.d.Devices.Interval)}, nil
}

// devicePage is the approval page a device shows: DeviceURL, else the
// web client's #/device at the address the device called.
func (s *Server) devicePage(ctx context.Context) string {
	if s.d.DeviceURL != "" {
		return s.d.DeviceURL
	}
	md, _ := metadata.FromIncomingContext(ctx)
	host := ""
	if v := md.Get(":authority"); len(v) > 0 {
		host = v[0]
	}
	scheme, proxied := "http", false
	if p, ok := peer.FromContext(ctx); ok {
		if _, tls := p.AuthInfo.(credentials.TLSInfo); tls {
			scheme = "https"
		}
		if ap, err := netip.ParseAddrPort(p.Addr.String()); err == nil {
			proxied = slices.ContainsFunc(s.d.TrustedProxies, func(t netip.Prefix) bool { return t.Contains(ap.Addr().Unmap()) })
		}
	}
	if proxied {
		if v := md.Get("x-forwarded-proto"); len(v) > 0 && strings.EqualFold(v[0], "https") {
			scheme = "https"
		}
		if v := md.Get("x-forwarded-host"); len(v) > 0 && v[0] != "" {
			host = v[0]
		}
	}
	return scheme + "://" + host + "/#/device"
}

// ApproveDeviceSignIn answers a device sign-in for the caller's account.
func (s *Server) ApproveDeviceSignIn(ctx context.Context, req *lobbyv1.ApproveDeviceSignInRequest) (*lobbyv1.ApproveDeviceSignInResponse, error) {
	if s.d.Devices == nil {
		return nil, devicesOff
	}
	pr, err := s.player(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	if strings.TrimSpace(req.GetUserCode()) == "" {
		return nil, toStatus(lobby.Invalid("user_code", "is required"))
	}
	if err := s.limit(ctx, s.d.Limits.Device, "device"); err != nil {
		return nil, err
	}
	if _, err := s.d.Store.AccountByPlayer(ctx, pr.PlayerID()); errors.Is(err, lobby.ErrNotFound) {
		return nil, reason.Error(codes.FailedPrecondition, reason.AccountNeeded, "only an account may approve a device sign-in: claim this guest first", nil)
	} else if err != nil {
		return nil, toStatus(err)
	}
	uc := devices.NormalizeUserCode(req.GetUserCode())
	if uc == "" {
		return nil, unknownUserCode()
	}
	dev, err := s.d.Devices.Approve(ctx, uc, pr.PlayerID(), req.GetDeny())
	if errors.Is(err, devices.ErrUnknownCode) {
		return nil, unknownUserCode()
	}
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.ApproveDeviceSignInResponse{Device: dev}, nil
}

func unknownUserCode() error {
	return reason.Error(codes.NotFound, reason.UserCodeUnknown, "no device sign-in waits for this code: it is mistyped, expired or already answered", nil)
}

// PollDeviceSignIn is a device's poll: its sign-in once approved.
func (s *Server) PollDeviceSignIn(ctx context.Context, req *lobbyv1.PollDeviceSignInRequest) (*lobbyv1.PollDeviceSignInResponse, error) {
	if s.d.Devices == nil {
		return nil, devicesOff
	}
	if req.GetDeviceCode() == "" {
		return nil, toStatus(lobby.Invalid("device_code", "is required"))
	}
	if len(req.GetDeviceCode()) > 128 {
		return nil, expiredToken()
	}
	playerID, dev, err := s.d.Devices.Poll(ctx, req.GetDeviceCode(), s.d.Now())
	var slow *devices.SlowDownError
	switch {
	case errors.Is(err, devices.ErrPending):
		return nil, reason.Error(codes.FailedPrecondition, reason.AuthorizationPending, "the player has not approved this sign-in yet: poll again after the interval", nil)
	case errors.Is(err, devices.ErrDenied):
		return nil, reason.Error(codes.PermissionDenied, reason.AccessDenied, "the player refused this sign-in", nil)
	case errors.Is(err, devices.ErrExpired):
		return nil, expiredToken()
	case errors.As(err, &slow):
		secs := seconds(slow.Interval)
		st := reason.New(codes.ResourceExhausted, reason.SlowDown, "polled sooner than the interval: poll every "+strconv.Itoa(int(secs))+" s",
			map[string]string{"retry_seconds": strconv.Itoa(int(secs))})
		if d, derr := st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(slow.Interval)}); derr == nil {
			st = d
		}
		return nil, st.Err()
	case err != nil:
		return nil, toStatus(err)
	}
	acct, err := s.d.Store.AccountByPlayer(ctx, playerID)
	if err != nil { // deleted between approval and poll
		if errors.Is(err, lobby.ErrNotFound) {
			return nil, expiredToken()
		}
		return nil, toStatus(err)
	}
	family := lobby.NewID("f_")
	if err := s.d.Sessions.StartDevice(ctx, family, acct.PlayerID, dev, s.d.Now(), s.d.RefreshTTL); err != nil {
		return nil, toStatus(err)
	}
	pair, err := s.issuePair(acct.PlayerID, acct.Username, false, family, 1)
	if err != nil {
		return nil, toStatus(err)
	}
	return &lobbyv1.PollDeviceSignInResponse{PlayerId: acct.PlayerID, Token: pair.token, ExpiresAt: timestamppb.New(pair.exp),
		RefreshToken: pair.refresh, RefreshExpiresAt: timestamppb.New(pair.refreshExp),
		DisplayName: acct.DisplayName, Username: acct.Username}, nil
}

func expiredToken() error {
	return reason.Error(codes.FailedPrecondition, reason.ExpiredToken, "the device code expired, was spent or never was: start the device sign-in again", nil)
}
