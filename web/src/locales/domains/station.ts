/**
 * Messages of the station screens, both languages side by side so a screen's strings are edited in
 * one place; `zh.ts` and `en.ts` spread them in.
 */
export const zh = {
  stationUi: {
    title: '电站',
  },
}

export const en: typeof zh = {
  stationUi: {
    title: 'Stations',
  },
}
