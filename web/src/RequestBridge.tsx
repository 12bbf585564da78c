import { App } from 'antd'
import { useEffect } from 'react'
import { configureRequest } from './api/request'

/** Lets the request client show its error toasts through antd's App context (theme, locale). */
export default function RequestBridge() {
  const { message } = App.useApp()
  useEffect(() => {
    configureRequest({ notifyError: (text) => void message.error(text) })
  }, [message])
  return null
}
