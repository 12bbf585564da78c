/** The station overview route (not a menu page): `/station/overview?id=<station id>`. */
export const OVERVIEW_PATH = '/station/overview'

export const overviewPath = (stationId: string): string =>
  `${OVERVIEW_PATH}?id=${encodeURIComponent(stationId)}`
