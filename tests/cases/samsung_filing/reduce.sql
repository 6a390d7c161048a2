-- samsung_latest_filing / latest (drv)
WITH "__reduce_0" AS (SELECT * FROM "filings" QUALIFY "rcept_dt" = max("rcept_dt") OVER ())
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: []

-- samsung_latest_filing / answer report
SELECT "report_nm" AS value FROM "latest" WHERE "report_nm" IS NOT NULL GROUP BY "report_nm" ORDER BY min("__row")
-- params: []

-- samsung_latest_filing / answer date
SELECT "rcept_dt" AS value FROM "latest" WHERE "rcept_dt" IS NOT NULL GROUP BY "rcept_dt" ORDER BY min("__row")
-- params: []

-- samsung_latest_filing / answer close
SELECT "clpr" AS value FROM "price" WHERE "clpr" IS NOT NULL GROUP BY "clpr" ORDER BY min("__row")
-- params: []
