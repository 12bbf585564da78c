/**
 * Menu pages that are built, by the menu path the server sends (the router also accepts the path
 * with "/index" appended). Each is its own chunk, given up on after the chunk time-out. Menu paths
 * missing here show the "not available yet" page.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react'
import { loadWithTimeout } from '../../router/lazy'

type Page = LazyExoticComponent<ComponentType>

const page = (load: () => Promise<{ default: ComponentType }>): Page =>
  lazy(() => loadWithTimeout(load))

export const builtPages: Readonly<Record<string, Page>> = {
  '/system/user': page(() => import('../system/user')),
  '/system/dept': page(() => import('../system/dept')),
  '/system/post': page(() => import('../system/post')),
  '/system/dict': page(() => import('../system/dict')),
  '/system/dictbiz': page(() => import('../system/dictbiz')),
  '/system/menu': page(() => import('../system/menu')),
  '/system/topmenu': page(() => import('../system/topmenu')),
  '/system/param': page(() => import('../system/param')),
  '/system/tenant': page(() => import('../system/tenant')),
  '/system/tenantPackage': page(() => import('../system/tenantPackage')),
  '/system/client': page(() => import('../system/client')),
  '/system/region': page(() => import('../system/region')),
  '/authority/role': page(() => import('../authority/role')),
  '/authority/datascope': page(() => import('../authority/scope/DataScopePage')),
  '/authority/apiscope': page(() => import('../authority/scope/ApiScopePage')),
  '/monitor/log/usual': page(() => import('../monitor/log/UsualLogPage')),
  '/monitor/log/api': page(() => import('../monitor/log/ApiLogPage')),
  '/monitor/log/error': page(() => import('../monitor/log/ErrorLogPage')),
  '/integrated/owner': page(() => import('../integrated/owner')),
  '/integrated/personnel': page(() => import('../integrated/personnel')),
  '/station/inverter': page(() => import('../station/inverter')),
  '/station/inverterThird': page(() => import('../station/inverterThird')),
  '/station/camera': page(() => import('../station/camera')),
  '/station/weather': page(() => import('../station/weather')),
  '/station/meter': page(() => import('../station/meter')),
  '/station/stationPrice': page(() => import('../station/stationPrice')),
  '/station/electricPrice': page(() => import('../station/electricPrice')),
  '/flex/flex': page(() => import('../flex/flex')),
  '/station/station': page(() => import('../station/station')),
  '/archives': page(() => import('../archives')),
  '/integrated/stationAssignment': page(() => import('../integrated/stationAssignment')),
  '/station/inverterReal': page(() => import('../station/inverterReal')),
  '/flex/realTime': page(() => import('../flex/realTime')),
  '/intelligentOperation/discreteRate': page(() => import('../intelligentOperation/discreteRate')),
  '/intelligentOperation/hdayRate': page(() => import('../intelligentOperation/hdayRate')),
  '/flex/alarmSetting': page(() => import('../flex/alarmSetting')),
  '/flex/alarmData': page(() => import('../flex/alarmData')),
  '/intelligentOperation/alarmData': page(() => import('../intelligentOperation/alarmData')),
  '/intelligentOperation/intelligentWarning': page(
    () => import('../intelligentOperation/intelligentWarning'),
  ),
  '/intelligentOperation/message': page(() => import('../intelligentOperation/message')),
}

/** The built page of a menu path, if any. */
export const builtPageOf = (menuPath: string): Page | undefined =>
  Object.hasOwn(builtPages, menuPath) ? builtPages[menuPath] : undefined
