import { Button, Result } from 'antd'
import { useTranslation } from 'react-i18next'
import { useRouteError } from 'react-router-dom'
import { isChunkLoadError } from './lazy'

/** Shown when a route fails to render, or its chunk fails to load (then: "failed to load"). */
export default function RouteError() {
  const { t } = useTranslation()
  const error = useRouteError()
  if (isChunkLoadError(error)) {
    return (
      <Result
        data-testid="chunk-load-error"
        status="warning"
        title={t('page.loadFailed')}
        subTitle={t('page.loadFailedNote')}
        extra={
          <Button type="primary" onClick={() => window.location.reload()}>
            {t('page.reload')}
          </Button>
        }
      />
    )
  }
  return (
    <Result
      status="500"
      title="500"
      subTitle={t('error.serverError')}
      extra={
        <Button type="primary" onClick={() => window.location.assign('/')}>
          {t('error.backHome')}
        </Button>
      }
    />
  )
}
