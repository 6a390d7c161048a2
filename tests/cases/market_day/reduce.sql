-- market_movers / bottom (drv)
WITH "__reduce_0" AS (SELECT * FROM "prices" WHERE "mrktCtg" = CAST(? AS VARCHAR) QUALIFY "fltRt" = min("fltRt") OVER ())
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: ["KOSDAQ"]

-- market_movers / top (drv)
WITH "__reduce_0" AS (SELECT * FROM "prices" WHERE "mrktCtg" = CAST(? AS VARCHAR) QUALIFY "fltRt" = max("fltRt") OVER ())
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: ["KOSPI"]

-- market_movers / answer best
SELECT "itmsNm" AS value FROM "top" WHERE "itmsNm" IS NOT NULL GROUP BY "itmsNm" ORDER BY min("__row")
-- params: []

-- market_movers / answer best_rate
SELECT "fltRt" AS value FROM "top" WHERE "fltRt" IS NOT NULL GROUP BY "fltRt" ORDER BY min("__row")
-- params: []

-- market_movers / answer worst
SELECT "itmsNm" AS value FROM "bottom" WHERE "itmsNm" IS NOT NULL GROUP BY "itmsNm" ORDER BY min("__row")
-- params: []

-- market_movers / answer worst_rate
SELECT "fltRt" AS value FROM "bottom" WHERE "fltRt" IS NOT NULL GROUP BY "fltRt" ORDER BY min("__row")
-- params: []

-- market_movers / answer listed
SELECT (SELECT count(*) FROM "prices") AS value
-- params: []

-- samsung_vs_hynix / winner (drv)
WITH "__reduce_0" AS (SELECT * FROM "prices" QUALIFY "fltRt" = max("fltRt") OVER ())
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: []

-- samsung_vs_hynix / answer winner
SELECT "itmsNm" AS value FROM "winner" WHERE "itmsNm" IS NOT NULL GROUP BY "itmsNm" ORDER BY min("__row")
-- params: []

-- samsung_vs_hynix / answer gap
SELECT ((SELECT max("clpr") FROM "prices") - (SELECT min("clpr") FROM "prices")) AS value
-- params: []

-- samsung_vs_hynix / answer ratio
SELECT round(((SELECT max("clpr") FROM "prices") / (SELECT min("clpr") FROM "prices")), 2) AS value
-- params: []

-- samsung_vs_hynix / answer caps_jo
SELECT round((((SELECT max("mrktTotAmt") FROM "prices") + (SELECT min("mrktTotAmt") FROM "prices")) / ?), 1) AS value
-- params: [1000000000000]

-- heavy_trading_first_pages / heavy (drv)
WITH "__reduce_0" AS (SELECT * FROM "prices" WHERE "trPrc" >= CAST(? AS HUGEINT))
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: [100000000000]

-- heavy_trading_first_pages / answer stocks
SELECT (SELECT count(*) FROM "heavy") AS value
-- params: []

-- heavy_trading_first_pages / answer avg_rate
SELECT round((SELECT avg("fltRt") FROM "heavy"), 2) AS value
-- params: []

-- heavy_trading_first_pages / answer value_eok
SELECT TRY_CAST(round(((SELECT sum("trPrc") FROM "heavy") / ?), 0) AS HUGEINT) AS value
-- params: [100000000]
