-- rights_offering_companies / hits (drv)
WITH "__reduce_0" AS (SELECT * FROM "sweep" WHERE "report_nm" = CAST(? AS VARCHAR))
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: ["주요사항보고서(유상증자결정)"]

-- rights_offering_companies / answer companies
SELECT "corp_name" AS value FROM "info" WHERE "corp_name" IS NOT NULL GROUP BY "corp_name" ORDER BY min("__row")
-- params: []

-- rights_offering_companies / answer ceos
SELECT "ceo_nm" AS value FROM "info" WHERE "ceo_nm" IS NOT NULL GROUP BY "ceo_nm" ORDER BY min("__row")
-- params: []

-- rights_offering_companies / answer avg_close
SELECT TRY_CAST(round((SELECT avg("clpr") FROM "prices"), 0) AS HUGEINT) AS value
-- params: []
