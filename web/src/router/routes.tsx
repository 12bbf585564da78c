import { Spin } from 'antd'
import type { ComponentType } from 'react'
import { Navigate, type RouteObject } from 'react-router-dom'
import { website } from '../config/website'
import type { RouteMeta, TitleKey } from './guard'
import { loadWithTimeout } from './lazy'
import RootGuard from './RootGuard'
import RouteError from './RouteError'

/**
 * The console's route table: every URL of the console is here or in `menuPages.ts` (the pages
 * reached through the menu tree). Page folders are named by business domain; the URLs keep the
 * words the menus, bookmarks and other clients of this family already use. What they mean:
 *
 * - `basicFacts` = home: fleet map (`equipmentMap`) and the fleet console (`dashboard`);
 * - `bigScreen` = the fleet's full-screen data wall;
 * - `archives` = station records (one station's details, devices, prices and gateway);
 * - `station/overview` = one station live; `station/inverterReal` = inverters live;
 * - `flex` = flexible PV bracket (solar tracker): its editor, live data, alarm rules and alarms;
 * - `integrated` = integrated management: owners, personnel, station assignment;
 * - `intelligentOperation` = smart O&M: alarms (`alarmData`), smart warnings
 *   (`intelligentWarning`), messages, string dispersion (`discreteRate`) and full-generation-hours
 *   deviation (`hdayRate`), repair orders (`repair`, one order `repair-detail`);
 * - `authority` = access control: roles, data scopes, API scopes;
 * - `monitor/log` = logs (`usual` = general application log, `api`, `error`);
 * - `info` = the signed-in user's profile; `myiframe` = an external page embedded in a tab;
 * - `system` = administration (users, depts, dictionaries, menus, tenants...).
 */
/** A lazily loaded page: each one is its own chunk, given up on after the chunk time-out. */
const page =
  <K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) =>
  async () => ({ Component: (await loadWithTimeout(load))[name] })

const publicMeta = (title?: TitleKey): RouteMeta => ({ title, isAuth: false })

export const routes: RouteObject[] = [
  {
    element: <RootGuard />,
    errorElement: <RouteError />,
    hydrateFallbackElement: <Spin fullscreen />,
    children: [
      {
        path: '/login',
        handle: { ...publicMeta('route.login'), isTab: false } satisfies RouteMeta,
        lazy: page(() => import('../pages/auth/login'), 'default'),
      },
      {
        path: '/forget',
        handle: publicMeta('route.forget'),
        lazy: page(() => import('../pages/auth/forget'), 'default'),
      },
      {
        path: '/lock',
        handle: publicMeta('route.lock'),
        lazy: page(() => import('../pages/auth/lock'), 'default'),
      },
      {
        path: '/404',
        handle: publicMeta('route.notFound'),
        lazy: page(() => import('../pages/shell/error'), 'NotFound'),
      },
      {
        path: '/403',
        handle: publicMeta('route.forbidden'),
        lazy: page(() => import('../pages/shell/error'), 'Forbidden'),
      },
      {
        path: '/500',
        handle: publicMeta('route.serverError'),
        lazy: page(() => import('../pages/shell/error'), 'ServerError'),
      },
      {
        // Big screen: its own window, no tab, no auth flag.
        path: '/bigScreen/index',
        handle: { ...publicMeta('route.bigScreen'), isTab: false } satisfies RouteMeta,
        lazy: page(() => import('../pages/home/bigScreen'), 'default'),
      },
      {
        path: '/',
        errorElement: <RouteError />,
        lazy: page(() => import('../layouts/MainLayout'), 'default'),
        children: [
          { index: true, element: <Navigate to="/basicFacts" replace /> },
          {
            path: 'basicFacts',
            children: [
              { index: true, element: <Navigate to={website.homePath} replace /> },
              {
                path: 'equipmentMap',
                handle: { title: 'route.home' } satisfies RouteMeta,
                lazy: page(() => import('../pages/home/map'), 'default'),
              },
              {
                // A console hidden from the menu.
                path: 'dashboard',
                handle: { title: 'route.dashboard' } satisfies RouteMeta,
                lazy: page(() => import('../pages/home/dashboard'), 'default'),
              },
            ],
          },
          {
            // A station live, opened from the home map (?id=<station id>): not a menu page.
            path: 'station/overview',
            handle: { title: 'route.stationOverview' } satisfies RouteMeta,
            lazy: page(() => import('../pages/realtime/station'), 'default'),
          },
          // Inspection detail pages (?id=…), reached from their list pages and messages: not menu pages.
          {
            path: 'intelligentOperation/edit-inspectionPlan',
            handle: { title: 'route.inspectionPlanEdit' } satisfies RouteMeta,
            lazy: page(() => import('../pages/inspection/plan/edit'), 'default'),
          },
          {
            path: 'intelligentOperation/inspectionPlan-detail',
            handle: { title: 'route.inspectionPlanDetail' } satisfies RouteMeta,
            lazy: page(() => import('../pages/inspection/plan/detail'), 'default'),
          },
          {
            path: 'intelligentOperation/inspectionTask-detail',
            handle: { title: 'route.inspectionTaskDetail' } satisfies RouteMeta,
            lazy: page(() => import('../pages/inspection/task/detail'), 'default'),
          },
          {
            path: 'intelligentOperation/inspectionRecord-detail',
            handle: { title: 'route.inspectionRecordDetail' } satisfies RouteMeta,
            lazy: page(() => import('../pages/inspection/record/detail'), 'default'),
          },
          {
            // One repair order (?id=), opened from the order list, an alarm or the bell.
            path: 'intelligentOperation/repair-detail',
            handle: { title: 'route.repairDetail' } satisfies RouteMeta,
            lazy: page(() => import('../pages/repair/detail'), 'default'),
          },
          {
            path: 'info/index',
            handle: { title: 'route.info' } satisfies RouteMeta,
            lazy: page(() => import('../pages/user/profile'), 'default'),
          },
          {
            path: 'myiframe/:routerPath',
            handle: { title: 'route.myiframe' } satisfies RouteMeta,
            lazy: page(() => import('../pages/shell/embed'), 'default'),
          },
          {
            // Every other page comes from the user's menu tree, loaded after sign-in. Menu paths are accepted
            // as sent (/station/inverter) and with "/index" appended; anything else goes to /404.
            path: '*',
            handle: { menuCatchAll: true } satisfies RouteMeta,
            lazy: page(() => import('../pages/shell/menuPage'), 'default'),
          },
        ],
      },
    ],
  },
]
