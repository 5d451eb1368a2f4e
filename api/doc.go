// Package api is propfin's HTTP/JSON API on httprouter: the route table,
// middleware (recover, request id and log, response headers, bearer
// authentication, rate limiting), the parser of the query language, the
// response envelopes and the one error writer, the generic handlers that
// serve every declared resource, and the operator routes (the queue
// dashboard and /metrics, behind the admin token) with the HTTP metrics,
// labelled by the route patterns of the one route table.
package api
