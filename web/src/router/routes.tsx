import { Spin } from 'antd'
import type { ComponentType } from 'react'
import { Navigate, type RouteObject } from 'react-router-dom'
import { website } from '../config/website'
import type { RouteMeta, TitleKey } from './guard'
import { loadWithTimeout } from './lazy'
import RootGuard from './RootGuard'
import RouteError from './RouteError'

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
        lazy: page(() => import('../pages/login'), 'default'),
      },
      {
        path: '/forget',
        handle: publicMeta('route.forget'),
        lazy: page(() => import('../pages/forget'), 'default'),
      },
      {
        path: '/lock',
        handle: publicMeta('route.lock'),
        lazy: page(() => import('../pages/lock'), 'default'),
      },
      {
        path: '/404',
        handle: publicMeta('route.notFound'),
        lazy: page(() => import('../pages/error'), 'NotFound'),
      },
      {
        path: '/403',
        handle: publicMeta('route.forbidden'),
        lazy: page(() => import('../pages/error'), 'Forbidden'),
      },
      {
        path: '/500',
        handle: publicMeta('route.serverError'),
        lazy: page(() => import('../pages/error'), 'ServerError'),
      },
      {
        // Big screen: its own window, no tab, no auth flag (spec §2).
        path: '/bigScreen/index',
        handle: { ...publicMeta('route.bigScreen'), isTab: false } satisfies RouteMeta,
        lazy: page(() => import('../pages/bigScreen'), 'default'),
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
                lazy: page(() => import('../pages/basicFacts/equipmentMap'), 'default'),
              },
              {
                // A console hidden from the menu (spec §2).
                path: 'dashboard',
                handle: { title: 'route.dashboard' } satisfies RouteMeta,
                lazy: page(() => import('../pages/basicFacts/dashboard'), 'default'),
              },
            ],
          },
          {
            // A station live, opened from the home map (?id=<station id>): not a menu page.
            path: 'station/overview',
            handle: { title: 'route.stationOverview' } satisfies RouteMeta,
            lazy: page(() => import('../pages/station/overview'), 'default'),
          },
          {
            path: 'info/index',
            handle: { title: 'route.info' } satisfies RouteMeta,
            lazy: page(() => import('../pages/info'), 'default'),
          },
          {
            path: 'myiframe/:routerPath',
            handle: { title: 'route.myiframe' } satisfies RouteMeta,
            lazy: page(() => import('../pages/myiframe'), 'default'),
          },
          {
            // Every other page comes from the user's menu tree (spec §2). Menu paths are accepted
            // as sent (/station/inverter) and with "/index" appended; anything else goes to /404.
            path: '*',
            handle: { menuCatchAll: true } satisfies RouteMeta,
            lazy: page(() => import('../pages/menuPage'), 'default'),
          },
        ],
      },
    ],
  },
]
