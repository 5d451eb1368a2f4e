// Package api is propfin's HTTP/JSON API on httprouter: the route table,
// middleware (recover, request id and log, response headers, bearer
// authentication, rate limiting), the parser of the query language, the
// response envelopes and the one error writer, and the generic handlers
// that serve every declared resource.
package api
