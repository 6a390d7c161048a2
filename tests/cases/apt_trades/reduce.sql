-- gangnam_big_deals / big (drv)
WITH "__reduce_0" AS (SELECT * FROM "trades" WHERE "dealAmount" >= CAST(? AS HUGEINT))
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: [300000]

-- gangnam_big_deals / answer deals
SELECT (SELECT count(*) FROM "big") AS value
-- params: []

-- gangnam_big_deals / answer share_pct
SELECT round((((SELECT count(*) FROM "big") * ?) / (SELECT count(*) FROM "trades")), 1) AS value
-- params: [100]

-- gangnam_big_deals / answer avg_eok
SELECT round(((SELECT avg("dealAmount") FROM "big") / ?), 2) AS value
-- params: [10000]

-- gangnam_big_deals / answer top_eok
SELECT ((SELECT max("dealAmount") FROM "trades") / ?) AS value
-- params: [10000]

-- bundang_affordable_dong / dong (drv)
WITH "__reduce_0" AS (SELECT * FROM "trades" WHERE "dealAmount" <= CAST(? AS HUGEINT)),
     "__reduce_1" AS (SELECT * FROM "__reduce_0" WHERE "umdNm" = (SELECT "umdNm" FROM "__reduce_0" WHERE "umdNm" IS NOT NULL GROUP BY "umdNm" ORDER BY count(*) DESC, "umdNm" ASC LIMIT 1))
SELECT * FROM "__reduce_1" ORDER BY "__row"
-- params: [100000]

-- bundang_affordable_dong / answer dong
SELECT "umdNm" AS value FROM "dong" WHERE "umdNm" IS NOT NULL GROUP BY "umdNm" ORDER BY min("__row")
-- params: []

-- bundang_affordable_dong / answer deals
SELECT (SELECT count(*) FROM "dong") AS value
-- params: []

-- bundang_affordable_dong / answer total_eok
SELECT ((SELECT sum("dealAmount") FROM "dong") / ?) AS value
-- params: [10000]

-- bundang_affordable_dong / answer cheapest
SELECT (SELECT min("dealAmount") FROM "dong") AS value
-- params: []

-- seocho_vs_songpa / top (drv)
WITH "__reduce_0" AS (SELECT * FROM "trades" QUALIFY "dealAmount" = max("dealAmount") OVER ())
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: []

-- seocho_vs_songpa / answer apt
SELECT "aptNm" AS value FROM "top" WHERE "aptNm" IS NOT NULL GROUP BY "aptNm" ORDER BY min("__row")
-- params: []

-- seocho_vs_songpa / answer dong
SELECT "umdNm" AS value FROM "top" WHERE "umdNm" IS NOT NULL GROUP BY "umdNm" ORDER BY min("__row")
-- params: []

-- seocho_vs_songpa / answer price
SELECT "dealAmount" AS value FROM "top" WHERE "dealAmount" IS NOT NULL GROUP BY "dealAmount" ORDER BY min("__row")
-- params: []

-- seocho_vs_songpa / answer spread
SELECT ((SELECT max("dealAmount") FROM "trades") - (SELECT min("dealAmount") FROM "trades")) AS value
-- params: []

-- seocho_vs_songpa / answer deals
SELECT (SELECT count(*) FROM "trades") AS value
-- params: []
