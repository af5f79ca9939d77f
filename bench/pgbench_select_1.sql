-- The cheapest round trip to PostgreSQL, for bench/run's "PostgreSQL alone" rows: a conditional GET on
-- PostgreSQL costs at least this besides its HTTP work.
SELECT 1;
