-- lunch_and_schedule / school (drv)
WITH "__reduce_0" AS (SELECT * FROM "schools" WHERE "ATPT_OFCDC_SC_CODE" = CAST(? AS VARCHAR))
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: ["B10"]

-- lunch_and_schedule / answer school
SELECT "SCHUL_NM" AS value FROM "school" WHERE "SCHUL_NM" IS NOT NULL GROUP BY "SCHUL_NM" ORDER BY min("__row")
-- params: []

-- lunch_and_schedule / answer menu
SELECT "DDISH_NM" AS value FROM "day.meals" WHERE "DDISH_NM" IS NOT NULL GROUP BY "DDISH_NM" ORDER BY min("__row")
-- params: []

-- lunch_and_schedule / answer kcal
SELECT "CAL_INFO" AS value FROM "day.meals" WHERE "CAL_INFO" IS NOT NULL GROUP BY "CAL_INFO" ORDER BY min("__row")
-- params: []

-- lunch_and_schedule / answer event
SELECT "EVENT_NM" AS value FROM "day.schedule" WHERE "EVENT_NM" IS NOT NULL GROUP BY "EVENT_NM" ORDER BY min("__row")
-- params: []

-- late_may_richest_meal / rich (drv)
WITH "__reduce_0" AS (SELECT * FROM "meals" WHERE "MLSV_YMD" > CAST(? AS DATE) QUALIFY "CAL_INFO" = max("CAL_INFO") OVER ())
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: [{"$date":"2024-05-15"}]

-- late_may_richest_meal / answer date
SELECT "MLSV_YMD" AS value FROM "rich" WHERE "MLSV_YMD" IS NOT NULL GROUP BY "MLSV_YMD" ORDER BY min("__row")
-- params: []

-- late_may_richest_meal / answer meal
SELECT "MMEAL_SC_NM" AS value FROM "rich" WHERE "MMEAL_SC_NM" IS NOT NULL GROUP BY "MMEAL_SC_NM" ORDER BY min("__row")
-- params: []

-- late_may_richest_meal / answer menu
SELECT "DDISH_NM" AS value FROM "rich" WHERE "DDISH_NM" IS NOT NULL GROUP BY "DDISH_NM" ORDER BY min("__row")
-- params: []

-- late_may_richest_meal / answer kcal
SELECT "CAL_INFO" AS value FROM "rich" WHERE "CAL_INFO" IS NOT NULL GROUP BY "CAL_INFO" ORDER BY min("__row")
-- params: []

-- late_may_richest_meal / answer served
SELECT (SELECT count(*) FROM "meals") AS value
-- params: []

-- may_schedule_high / if#1 (if)
SELECT ((SELECT count(*) FROM "events") > ?) AS value
-- params: [10]

-- may_schedule_high / if#1/else/pick (drv)
WITH "__reduce_0" AS (SELECT * FROM "events" QUALIFY "AA_YMD" = max("AA_YMD") OVER ())
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: []

-- may_schedule_high / if#1/then/pick (drv)
WITH "__reduce_0" AS (SELECT * FROM "events"),
     "__reduce_1" AS (SELECT * FROM "__reduce_0" WHERE "EVENT_NM" = (SELECT "EVENT_NM" FROM "__reduce_0" WHERE "EVENT_NM" IS NOT NULL GROUP BY "EVENT_NM" ORDER BY count(*) DESC, "EVENT_NM" ASC LIMIT 1))
SELECT * FROM "__reduce_1" ORDER BY "__row"
-- params: []

-- may_schedule_high / answer events
SELECT (SELECT count(*) FROM "events") AS value
-- params: []

-- may_schedule_high / answer pick
SELECT "EVENT_NM" AS value FROM "pick" WHERE "EVENT_NM" IS NOT NULL GROUP BY "EVENT_NM" ORDER BY min("__row")
-- params: []

-- may_schedule_high / answer days
SELECT (SELECT count(*) FROM "pick") AS value
-- params: []

-- may_schedule_elementary / first (drv)
WITH "__reduce_0" AS (SELECT * FROM "schools" QUALIFY "FOND_YMD" = min("FOND_YMD") OVER ())
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: []

-- may_schedule_elementary / if#1 (if)
SELECT ((SELECT count(*) FROM "events") > ?) AS value
-- params: [10]

-- may_schedule_elementary / if#1/else/pick (drv)
WITH "__reduce_0" AS (SELECT * FROM "events" QUALIFY "AA_YMD" = max("AA_YMD") OVER ())
SELECT * FROM "__reduce_0" ORDER BY "__row"
-- params: []

-- may_schedule_elementary / if#1/then/pick (drv)
WITH "__reduce_0" AS (SELECT * FROM "events"),
     "__reduce_1" AS (SELECT * FROM "__reduce_0" WHERE "EVENT_NM" = (SELECT "EVENT_NM" FROM "__reduce_0" WHERE "EVENT_NM" IS NOT NULL GROUP BY "EVENT_NM" ORDER BY count(*) DESC, "EVENT_NM" ASC LIMIT 1))
SELECT * FROM "__reduce_1" ORDER BY "__row"
-- params: []

-- may_schedule_elementary / answer school
SELECT "SCHUL_NM" AS value FROM "first" WHERE "SCHUL_NM" IS NOT NULL GROUP BY "SCHUL_NM" ORDER BY min("__row")
-- params: []

-- may_schedule_elementary / answer events
SELECT (SELECT count(*) FROM "events") AS value
-- params: []

-- may_schedule_elementary / answer pick
SELECT "EVENT_NM" AS value FROM "pick" WHERE "EVENT_NM" IS NOT NULL GROUP BY "EVENT_NM" ORDER BY min("__row")
-- params: []

-- may_schedule_elementary / answer date
SELECT "AA_YMD" AS value FROM "pick" WHERE "AA_YMD" IS NOT NULL GROUP BY "AA_YMD" ORDER BY min("__row")
-- params: []
