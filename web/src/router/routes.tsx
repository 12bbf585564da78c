import { Spin } from 'antd'
import type { ComponentType } from 'react'
import { Navigate, type RouteObject } from 'react-router-dom'
import { website } from '../config/website'
import type { RouteMeta, TitleKey } from './guard'
import RootGuard from './RootGuard'
import RouteError from './RouteError'

/** A lazily loaded page: each one is its own chunk. */
const page =
  <K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) =>
  async () => ({ Component: (await load())[name] })

const publicMeta = (title?: TitleKey): RouteMeta => ({ title, isAuth: false })

export const routes: RouteObject[] = [
  {
    element: <RootGuard />,
    errorElement: <RouteError />,
    hydrateFallbackElement: <Spin fullscreen />,
    children: [
      {
        path: '/login',
        handle: publicMeta('route.login'),
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
        path: '/',
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
            ],
          },
        ],
      },
      // Unknown paths go to /404, signed in or not.
      { path: '*', handle: publicMeta(), element: <Navigate to="/404" replace /> },
    ],
  },
]
