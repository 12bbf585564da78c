import { Button, Result } from 'antd'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'

type Status = '403' | '404' | '500'

const subTitleKey = {
  '403': 'error.forbidden',
  '404': 'error.notFound',
  '500': 'error.serverError',
} as const

function ErrorPage({ status }: { status: Status }) {
  const { t } = useTranslation()
  const navigate = useNavigate()
  return (
    <Result
      data-testid={`error-${status}`}
      status={status}
      title={status}
      subTitle={t(subTitleKey[status])}
      extra={
        <Button type="primary" onClick={() => void navigate('/')}>
          {t('error.backHome')}
        </Button>
      }
    />
  )
}

export const NotFound = () => <ErrorPage status="404" />
export const Forbidden = () => <ErrorPage status="403" />
export const ServerError = () => <ErrorPage status="500" />
