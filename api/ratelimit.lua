-- One rate-limit bucket (GCRA): KEYS[1] holds the bucket's theoretical
-- arrival time (TAT), in microseconds of this server's clock; the bucket is
-- full when the TAT is not ahead of now, and each request granted moves it
-- one interval ahead. Requests handed back move it back.
--
-- ARGV[1] interval: microseconds between two requests at the limit's rate
-- ARGV[2] burst: the most requests the bucket holds
-- ARGV[3] want: requests asked for; as many as the bucket holds are granted
-- ARGV[4] back: requests granted earlier and not spent, handed back first
--
-- Returns {granted, remaining after the grant, microseconds until one more
-- request would be granted (0 when all were)}.
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local back = tonumber(ARGV[4])

local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now) or now
tat = math.max(tat - back * interval, now)

-- the small epsilon keeps a whole request from being lost to rounding
local free = math.floor((now - tat) / interval + burst + 1e-6)
local granted = math.max(0, math.min(want, free))
tat = tat + granted * interval

local ttl = math.ceil((tat - now) / 1000)
if ttl > 0 then
  redis.call('SET', KEYS[1], string.format('%.17g', tat), 'PX', ttl)
else
  redis.call('DEL', KEYS[1])
end

local wait = 0
if granted < want then
  wait = math.ceil(tat + interval - burst * interval - now)
end
return {granted, free - granted, wait}
