/**
 * Website settings and the product's constants (time-outs, token time, defaults). Values that the product ships with;
 * change them here, not at the call sites.
 */
export const website = {
  /** Product title; the translated one (i18n key `app.title`) is what the UI shows. */
  title: '光伏电站智慧运维监控平台',
  /** Prefix of every browser-storage key this console writes (`pv-token`, `pv-language`, ...). */
  key: 'pv',
  tenantMode: true,
  tenantId: '000000',
  captchaMode: true,
  switchMode: false,
  /** Age in seconds at which the stored access token is refreshed (checked every 10 s). */
  tokenTime: 3000,
  /** Header that carries `bearer <access token>`. */
  tokenHeader: 'Blade-Auth',
  /** OAuth client of this console; sent as `Authorization: Basic base64(clientId:clientSecret)`. */
  clientId: 'saber',
  clientSecret: 'saber_secret',
  lockPage: '/lock',
  /** Route the root `/` leads to (the home map). */
  homePath: '/basicFacts/equipmentMap',
  /** Response codes rejected without an error toast (configurable; none by default). */
  statusWhiteList: [] as number[],
  requestTimeout: 30_000,
  uploadTimeout: 1_800_000,
  /**
   * Online base map under the bundled province outlines (maps of stations, the location picker),
   * `{z}/{x}/{y}` (and optional `{s}`) placeholders; empty = outlines only. Coordinates are stored
   * as WGS-84, which OpenStreetMap tiles use. Chinese providers (AutoNavi, Tencent...) draw in
   * GCJ-02, offset by a few hundred metres: a template of theirs would need the positions
   * converted for display, never for storage.
   */
  mapTileUrl: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
  mapTileAttribution: '© OpenStreetMap contributors',
  /** How long the one probe tile may take before the map settles for the outlines alone (ms). */
  mapTileProbeTimeout: 3000,
} as const
