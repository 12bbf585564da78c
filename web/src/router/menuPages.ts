/**
 * Menu pages that are built, by the menu path the server sends (the router also accepts the path
 * with "/index" appended). Each is its own chunk, given up on after the chunk time-out. Menu paths
 * missing here show the "not available yet" page.
 * The legacy URL words are explained in `routes.tsx`.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react'
import { loadWithTimeout } from './lazy'

type Page = LazyExoticComponent<ComponentType>
type PageModule = { default: ComponentType }

const page = (load: () => Promise<PageModule>): Page => lazy(() => loadWithTimeout(load))

/** `../pages/business/sparePart/index.tsx` → `/business/sparePart` (else null). */
export const businessPath = (file: string): string | null => {
  const folder = /\/pages\/business\/([^/]+)\/index\.tsx$/.exec(file)?.[1]
  return folder ? `/business/${folder}` : null
}

/**
 * Pages the code generator adds (`pages/business/{folder}/index.tsx`, menu path
 * `/business/{folder}`): found by their place, so an unpacked page needs no line here.
 */
export function businessPages(
  modules: Readonly<Record<string, () => Promise<PageModule>>>,
): Record<string, Page> {
  const pages: Record<string, Page> = {}
  for (const [file, load] of Object.entries(modules)) {
    const path = businessPath(file)
    if (path) pages[path] = page(load)
  }
  return pages
}

export const builtPages: Readonly<Record<string, Page>> = {
  // First: a hand-written page of the same path wins.
  ...businessPages(import.meta.glob<PageModule>('../pages/business/*/index.tsx')),
  '/system/user': page(() => import('../pages/user/account')),
  '/system/dept': page(() => import('../pages/system/dept')),
  '/system/post': page(() => import('../pages/system/post')),
  '/system/dict': page(() => import('../pages/system/dict')),
  '/system/dictbiz': page(() => import('../pages/system/dictbiz')),
  '/system/menu': page(() => import('../pages/system/menu')),
  '/system/topmenu': page(() => import('../pages/system/topmenu')),
  '/system/param': page(() => import('../pages/system/param')),
  '/system/tenant': page(() => import('../pages/system/tenant')),
  '/system/tenantPackage': page(() => import('../pages/system/tenantPackage')),
  '/system/client': page(() => import('../pages/system/client')),
  '/system/region': page(() => import('../pages/system/region')),
  '/resource/oss': page(() => import('../pages/resource/oss')),
  '/resource/attach': page(() => import('../pages/resource/attach')),
  '/resource/sms': page(() => import('../pages/resource/sms')),
  '/resource/notifyLog': page(() => import('../pages/resource/notifyLog')),
  '/authority/role': page(() => import('../pages/user/role')),
  '/authority/datascope': page(() => import('../pages/user/scope/DataScopePage')),
  '/authority/apiscope': page(() => import('../pages/user/scope/ApiScopePage')),
  '/monitor/log/usual': page(() => import('../pages/log/UsualLogPage')),
  '/monitor/log/api': page(() => import('../pages/log/ApiLogPage')),
  '/monitor/log/error': page(() => import('../pages/log/ErrorLogPage')),
  '/integrated/owner': page(() => import('../pages/user/owner')),
  '/integrated/personnel': page(() => import('../pages/user/personnel')),
  '/station/inverter': page(() => import('../pages/device/inverter')),
  '/station/inverterThird': page(() => import('../pages/device/inverterThird')),
  '/station/camera': page(() => import('../pages/device/camera')),
  '/station/weather': page(() => import('../pages/device/weather')),
  '/station/meter': page(() => import('../pages/device/meter')),
  '/station/stationPrice': page(() => import('../pages/price/stationPrice')),
  '/station/electricPrice': page(() => import('../pages/price/electricPrice')),
  '/flex/flex': page(() => import('../pages/device/tracker')),
  '/station/station': page(() => import('../pages/station/list')),
  '/archives': page(() => import('../pages/station/archive')),
  '/equipment': page(() => import('../pages/equipment')),
  '/integrated/stationAssignment': page(() => import('../pages/user/stationAssignment')),
  '/station/inverterReal': page(() => import('../pages/realtime/inverter')),
  '/flex/realTime': page(() => import('../pages/realtime/tracker')),
  '/intelligentOperation/discreteRate': page(() => import('../pages/analytics/dispersion')),
  '/intelligentOperation/hdayRate': page(() => import('../pages/analytics/generationHours')),
  '/report/stationElectricity': page(() => import('../pages/report/stationElectricity')),
  '/report/inverterElectricity': page(() => import('../pages/report/inverterElectricity')),
  '/report/irradiance': page(() => import('../pages/report/irradiance')),
  '/report/meterReport': page(() => import('../pages/report/meterReport')),
  '/report/electricityBill': page(() => import('../pages/report/electricityBill')),
  '/report/energyConservation': page(() => import('../pages/report/energyConservation')),
  '/report/energyCorrection': page(() => import('../pages/report/energyCorrection')),
  '/tool/report': page(() => import('../pages/report/reportFile')),
  '/tool/datasource': page(() => import('../pages/develop/datasource')),
  '/tool/model': page(() => import('../pages/develop/model')),
  '/tool/code': page(() => import('../pages/develop/code')),
  '/flex/alarmSetting': page(() => import('../pages/alarm/trackerRules')),
  '/flex/alarmData': page(() => import('../pages/alarm/trackerAlarms')),
  '/intelligentOperation/alarmData': page(() => import('../pages/alarm/alarms')),
  '/intelligentOperation/intelligentWarning': page(() => import('../pages/alarm/warnings')),
  '/intelligentOperation/message': page(() => import('../pages/alarm/message')),
  '/intelligentOperation/inspectionItem': page(() => import('../pages/inspection/item')),
  '/intelligentOperation/inspectionPlan': page(() => import('../pages/inspection/plan')),
  '/intelligentOperation/inspectionTask': page(() => import('../pages/inspection/task')),
  '/intelligentOperation/inspectionRecord': page(() => import('../pages/inspection/record')),
  '/intelligentOperation/repair': page(() => import('../pages/repair/list')),
  '/flow/model': page(() => import('../pages/flow/model')),
  '/flow/manager': page(() => import('../pages/flow/manager')),
  '/flow/follow': page(() => import('../pages/flow/follow')),
  '/work': page(() => import('../pages/flow/work')),
}

/** The built page of a menu path, if any. */
export const builtPageOf = (menuPath: string): Page | undefined =>
  Object.hasOwn(builtPages, menuPath) ? builtPages[menuPath] : undefined
