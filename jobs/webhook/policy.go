package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// Policy is where deliveries may go. By default only https, to public
// addresses: a private (10/8, 172.16/12, 192.168/16, fc00::/7, 100.64/10),
// loopback, link-local (169.254/16, the cloud metadata address among
// them; fe80::/10), unspecified or multicast address is refused, so that
// an endpoint cannot reach into the operator's network.
type Policy struct {
	// AllowLoopback lets endpoints be on loopback addresses (127/8, ::1,
	// localhost), over http too: development and tests
	// (PROPFIN_WEBHOOK_ALLOW_LOOPBACK).
	AllowLoopback bool
	// AllowPrivate lets endpoints be on private and link-local addresses
	// (PROPFIN_WEBHOOK_ALLOW_PRIVATE): a deployment whose integrators are
	// inside its own network.
	AllowPrivate bool
	// Resolver looks names up (nil: net.DefaultResolver).
	Resolver *net.Resolver
}

// ErrRefused is an address the policy refuses.
var ErrRefused = errors.New("webhook: address refused by the network policy")

// maxURL bounds an endpoint's URL.
const maxURL = 2048

// CheckURL says why an endpoint's URL is refused ("" when it is taken): not
// an absolute http(s) URL with a host, credentials in it, http to anything
// but an allowed loopback address, or a host that is, or resolves to, an
// address the policy refuses. An https URL whose name does not resolve now
// is taken: the dial checks the addresses it resolves to then. Plain http
// is taken only to a host shown to be loopback, so never to a name that
// does not resolve.
func (p Policy) CheckURL(ctx context.Context, raw string) string {
	u, msg := parseURL(raw)
	if msg != "" {
		return msg
	}
	host := u.Hostname()
	addrs, err := p.lookup(ctx, host)
	if err != nil {
		if u.Scheme == "http" {
			return "must be an https URL"
		}
		return "" // checked at every dial
	}
	loopbackOnly := len(addrs) > 0
	for _, a := range addrs {
		if why := p.refuses(a); why != "" {
			return fmt.Sprintf("must not reach a %s address (%s resolves to %s)", why, host, a)
		}
		loopbackOnly = loopbackOnly && a.IsLoopback()
	}
	if u.Scheme == "http" && !loopbackOnly {
		return "must be an https URL"
	}
	return ""
}

// parseURL reads an endpoint's URL, refusing what no policy takes.
func parseURL(raw string) (*url.URL, string) {
	if len(raw) > maxURL {
		return nil, fmt.Sprintf("must be at most %d characters", maxURL)
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "":
		return nil, "must be an absolute https URL"
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, "must be an https URL"
	case u.User != nil:
		return nil, "must not hold a user name or password"
	case u.Fragment != "":
		return nil, "must not hold a fragment (#)"
	case u.Hostname() == "":
		return nil, "must name a host"
	}
	return u, ""
}

// lookup resolves host to its addresses (a literal address is itself).
func (p Policy) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	r := p.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	ips, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	out := make([]netip.Addr, len(ips))
	for i, a := range ips {
		out[i] = a.Unmap()
	}
	return out, nil
}

// sharedAddressSpace is 100.64.0.0/10 (RFC 6598, carrier-grade NAT).
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// refuses names the kind of network a refused address is in; "" when the
// policy lets deliveries reach it.
func (p Policy) refuses(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		if p.AllowLoopback {
			return ""
		}
		return "loopback"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast() || a.IsInterfaceLocalMulticast() || a.IsLinkLocalMulticast():
		return "multicast"
	case a.IsLinkLocalUnicast():
		if p.AllowPrivate {
			return ""
		}
		return "link-local"
	case a.IsPrivate() || sharedAddressSpace.Contains(a):
		if p.AllowPrivate {
			return ""
		}
		return "private"
	}
	return ""
}

// CheckAddr is the dial's check of the address a connection is about to
// reach: ErrRefused, wrapped with the network's kind, when the policy
// refuses it.
func (p Policy) CheckAddr(a netip.Addr) error {
	if why := p.refuses(a); why != "" {
		return fmt.Errorf("%w: %s is a %s address", ErrRefused, a, why)
	}
	return nil
}
