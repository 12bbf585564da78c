import { createBrowserRouter } from 'react-router-dom'
import { configureRequest } from '../api/request'
import { loginPath } from './guard'
import { routes } from './routes'

export const router = createBrowserRouter(routes)

// After a 401 the request client has cleared the session; the router takes the user to /login.
configureRequest({ onUnauthorized: () => void router.navigate(loginPath, { replace: true }) })
