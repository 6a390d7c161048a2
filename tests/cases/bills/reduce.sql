-- road_traffic_passed_proposers / leads (drv)
WITH "__reduce_0" AS (SELECT * FROM "ppsr" WHERE "REP_DIV" = CAST(? AS VARCHAR))
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: ["대표발의"]

-- road_traffic_passed_proposers / passed (drv)
WITH "__reduce_0" AS (SELECT * FROM "bills" WHERE "PROC_RESULT" = CAST(? AS VARCHAR))
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: ["원안가결"]

-- road_traffic_passed_proposers / answer bills
SELECT "BILL_NO" AS value FROM "passed" WHERE "BILL_NO" IS NOT NULL GROUP BY "BILL_NO" ORDER BY min("__row")
-- params: []

-- road_traffic_passed_proposers / answer leads
SELECT "PPSR_NM" AS value FROM "leads" WHERE "PPSR_NM" IS NOT NULL GROUP BY "PPSR_NM" ORDER BY min("__row")
-- params: []

-- road_traffic_passed_proposers / answer parties
SELECT "PPSR_POLY_NM" AS value FROM "leads" WHERE "PPSR_POLY_NM" IS NOT NULL GROUP BY "PPSR_POLY_NM" ORDER BY min("__row")
-- params: []

-- road_traffic_passed_proposers / answer cosponsors
SELECT ((SELECT count(*) FROM "ppsr") - (SELECT count(*) FROM "leads")) AS value
-- params: []

-- road_traffic_opposition / against (drv)
WITH "__reduce_0" AS (SELECT * FROM "votes" WHERE "RESULT_VOTE_MOD" = CAST(? AS VARCHAR))
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: ["반대"]

-- road_traffic_opposition / last (drv)
WITH "__reduce_0" AS (SELECT * FROM "bills" WHERE "PROC_RESULT" = CAST(? AS VARCHAR) QUALIFY "PROC_DT" = max("PROC_DT") OVER ())
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: ["원안가결"]

-- road_traffic_opposition / party (drv)
WITH "__reduce_0" AS (SELECT * FROM "against"),
     "__reduce_1" AS (SELECT * FROM "__reduce_0" WHERE "POLY_NM" = (SELECT "POLY_NM" FROM "__reduce_0" WHERE "POLY_NM" IS NOT NULL GROUP BY "POLY_NM" ORDER BY count(*) DESC, "POLY_NM" ASC LIMIT 1))
SELECT * FROM "__reduce_1" ORDER BY "__row"
-- params: []

-- road_traffic_opposition / answer bill
SELECT "BILL_NO" AS value FROM "last" WHERE "BILL_NO" IS NOT NULL GROUP BY "BILL_NO" ORDER BY min("__row")
-- params: []

-- road_traffic_opposition / answer date
SELECT "PROC_DT" AS value FROM "last" WHERE "PROC_DT" IS NOT NULL GROUP BY "PROC_DT" ORDER BY min("__row")
-- params: []

-- road_traffic_opposition / answer party
SELECT "POLY_NM" AS value FROM "party" WHERE "POLY_NM" IS NOT NULL GROUP BY "POLY_NM" ORDER BY min("__row")
-- params: []

-- road_traffic_opposition / answer party_no
SELECT (SELECT count(*) FROM "party") AS value
-- params: []

-- road_traffic_opposition / answer all_no
SELECT (SELECT count(*) FROM "against") AS value
-- params: []

-- road_traffic_opposition / answer others
SELECT ((SELECT count(*) FROM "votes") - (SELECT count(*) FROM "against")) AS value
-- params: []
