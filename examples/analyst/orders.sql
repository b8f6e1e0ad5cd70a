-- The data-analyst example's table: 10,000 deterministic orders in four
-- regions. Load it into any database you can reach:
--   psql "$DATABASE_URL" -f examples/analyst/orders.sql
SET client_min_messages = warning;
DROP TABLE IF EXISTS orders;
CREATE TABLE orders AS
SELECT i AS id,
       (ARRAY['eu-west', 'us-east', 'us-west', 'ap-south'])[1 + i % 4] AS region,
       'customer-' || lpad((i * 37 % 250)::text, 3, '0') AS customer,
       round(((i * 7919) % 100000) / 100.0, 2)::numeric(10,2) AS amount,
       date '2025-01-01' + (i % 90) AS day
FROM generate_series(1, 10000) AS i;
