import { Alert, Button, Card, Flex, Form, Input, Typography } from 'antd'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router-dom'
import LanguageSwitch from '../../components/LanguageSwitch'
import { website } from '../../config/website'
import ServerStatus from './ServerStatus'

/**
 * /login. For now: product title, language switch and the server status. The fields are shown
 * disabled; signing in arrives with the next issue.
 */
export default function Login() {
  const { t } = useTranslation()
  return (
    <Flex
      vertical
      align="center"
      justify="center"
      gap={24}
      style={{
        minHeight: '100vh',
        padding: 16,
        background: 'linear-gradient(135deg, #0b3d91 0%, #1f6fd1 55%, #f5b301 140%)',
      }}
    >
      <Typography.Title level={2} style={{ color: '#fff', margin: 0, textAlign: 'center' }}>
        {t('app.title')}
      </Typography.Title>
      <Card
        style={{ width: '100%', maxWidth: 400 }}
        title={t('login.heading')}
        extra={<LanguageSwitch />}
      >
        <Alert type="info" showIcon title={t('login.notYet')} style={{ marginBottom: 16 }} />
        <Form layout="vertical" disabled initialValues={{ tenantId: website.tenantId }}>
          {website.tenantMode && (
            <Form.Item label={t('login.tenantId')} name="tenantId">
              <Input />
            </Form.Item>
          )}
          <Form.Item label={t('login.account')} name="account">
            <Input autoComplete="username" />
          </Form.Item>
          <Form.Item label={t('login.password')} name="password">
            <Input.Password autoComplete="current-password" />
          </Form.Item>
          <Button type="primary" block htmlType="submit">
            {t('login.submit')}
          </Button>
        </Form>
        <Flex justify="space-between" align="center" style={{ marginTop: 16 }} wrap gap={8}>
          <ServerStatus />
          <Link to="/forget">{t('login.forget')}</Link>
        </Flex>
      </Card>
    </Flex>
  )
}
