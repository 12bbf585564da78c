import { Result, Spin } from 'antd'
import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import { useParams } from 'react-router-dom'
import { buildMenu, flattenMenu, iframePrefix } from '../../../router/menu'
import { useSessionStore } from '../../../stores/session'

/**
 * /myiframe/{routerPath}: embeds the external page of a menu entry. The URL comes from the user's
 * own menu (never from the address bar), so a crafted link cannot frame an arbitrary site.
 */
export default function MyIframe() {
  const { t } = useTranslation()
  const { routerPath = '' } = useParams()
  const menu = useSessionStore((s) => s.menu)
  const loaded = useSessionStore((s) => s.menuLoaded)
  const role = useSessionStore((s) => s.userInfo?.role_name)
  const node = useMemo(
    () =>
      flattenMenu(buildMenu(menu, role)).find(
        (item) => item.routePath === iframePrefix + encodeURIComponent(routerPath),
      ),
    [menu, role, routerPath],
  )
  if (!node?.src) {
    return loaded ? <Result status="404" title={t('page.iframeMissing')} /> : <Spin />
  }
  return (
    <iframe
      data-testid="myiframe"
      title={node.name}
      src={node.src}
      style={{ width: '100%', height: 'calc(100vh - 170px)', border: 0 }}
    />
  )
}
