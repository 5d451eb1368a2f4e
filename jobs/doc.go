// Package jobs is propfin's job platform: the heavy finance work runs on
// asynq workers over Redis, while PostgreSQL holds the truth about every
// job.
//
// A job's life (docs/jobs.md has the whole story):
//
//   - Submit: Registry.Submit checks the payload against its Kind and
//     inserts the job row, pending, in the caller's transaction (an
//     outbox), so a business write and the job it asks for commit or roll
//     back together. Work that may happen once per key (a company's
//     nightly run of a date) carries a unique key: a second submission
//     returns the first job.
//   - Relay: a Relay takes pending rows in batches and enqueues them to
//     asynq with the job id as the task id, then marks them queued. When
//     Redis is down the rows wait; nothing is lost.
//   - Work: a Worker marks the row running, runs the kind's handler and
//     writes the result and the final state. Handlers are idempotent
//     (asynq delivers at least once); Run.Chunks records the work chunk
//     by chunk, so an interrupted job resumes where it stopped.
//   - Schedule: a Scheduler fires cron schedules in each company's time
//     zone, one job per company and date.
//
// A kind is a name constant, a payload type and a handler, declared with
// Define and listed in the registry built by Kinds.
package jobs
