package storage

// EventStatusSQL exposes eventStatusSQL to the package's external tests.
var EventStatusSQL = eventStatusSQL
