-- The examples that `scripts/check-statements --self-test` judges, so that the check cannot pass everything or
-- nothing unnoticed: blocks apart by blank lines, each headed by what the checker must say of it (`schema`: what the
-- rest runs on; `names`: every society table named by a parameter, or not to be checked; `wrong`: a violation).

-- schema
CREATE TABLE societies (id BIGINT PRIMARY KEY, country TEXT);
CREATE TABLE users (id BIGINT PRIMARY KEY, society_id BIGINT, email TEXT);
CREATE TABLE farmers (society_id BIGINT, id BIGINT, name TEXT);
CREATE TABLE plots (society_id BIGINT, id BIGINT, farmer_id BIGINT);
CREATE TABLE units (id BIGINT, name TEXT);
ALTER TABLE units ADD COLUMN society_id BIGINT;

-- names
SELECT name FROM farmers WHERE society_id = $1 AND id = $2

-- names: through a join, with a cast
SELECT f.name FROM farmers f JOIN plots p ON p.society_id = f.society_id WHERE f.society_id = $1::bigint

-- names: a row comparison
UPDATE plots SET farmer_id = $3 WHERE (society_id, id) = ($1, $2)

-- names
DELETE FROM farmers f USING plots p WHERE f.society_id = $1 AND p.society_id = f.society_id

-- names: through a CTE that names its society
WITH x AS (SELECT * FROM plots WHERE society_id = $1)
SELECT * FROM x JOIN farmers f USING (id) WHERE f.society_id = x.society_id

-- names: the subquery names its society itself
SELECT id FROM plots p WHERE society_id = $1
AND EXISTS (SELECT 1 FROM farmers f WHERE f.society_id = $1 AND f.id = p.farmer_id)

-- names: an IN list of one
INSERT INTO plots (society_id, id) SELECT $1, id FROM farmers WHERE society_id IN ($1)

-- names: users and societies are reference tables
SELECT u.id, s.country FROM users u JOIN societies s ON s.id = u.society_id WHERE u.email = $1

-- names: a declared sweep
/* all societies: the jobs sweep */ SELECT society_id, id FROM farmers

-- names: a migration
ALTER TABLE plots ADD COLUMN tag TEXT; UPDATE plots SET tag = ''

-- wrong
SELECT name FROM farmers WHERE id = $1

-- wrong: several societies
SELECT name FROM farmers WHERE society_id = ANY($1)

-- wrong: several societies
SELECT name FROM farmers WHERE society_id IN ($1, $2)

-- wrong: under an OR
SELECT name FROM farmers WHERE society_id = $1 OR id = $2

-- wrong: a constant, not a parameter
SELECT name FROM farmers WHERE society_id = 7

-- wrong: joined on the society, which nothing names
SELECT f.name FROM farmers f JOIN plots p ON p.society_id = f.society_id WHERE p.id = $1

-- wrong: a LEFT JOIN's ON does not restrict its left side
SELECT * FROM farmers f LEFT JOIN plots p ON f.society_id = $1 AND p.society_id = f.society_id

-- wrong: the subquery reads every society
SELECT id FROM plots p WHERE society_id = $1 AND farmer_id IN (SELECT id FROM farmers)

-- wrong: correlated with the outer row only
SELECT p.id, (SELECT name FROM farmers f WHERE f.society_id = p.society_id) FROM plots p WHERE p.society_id = $1

-- wrong: named outside the CTE only
WITH x AS (SELECT * FROM plots) SELECT * FROM x WHERE x.society_id = $1

-- wrong: a column added by ALTER TABLE
UPDATE units SET name = $2 WHERE id = $1

-- wrong: a subquery tied to the outer row, not to a parameter
SELECT id, (SELECT count(*) FROM plots p WHERE p.society_id = f.society_id) FROM farmers f WHERE f.society_id = $1

-- wrong: not the sweep's comment
/* every society */ SELECT society_id, id FROM farmers

-- wrong: not parsed
SELEC name FROM farmers
